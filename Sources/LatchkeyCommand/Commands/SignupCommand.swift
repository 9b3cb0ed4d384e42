import ArgumentParser
import Foundation
import Latchkey

/// `latchkey signup`: creates an account, and signs in when the server confirms it at once.
struct SignupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signup",
        abstract: "Create an account (and sign in, when the server needs no email confirmation).",
        discussion: """
            Takes the same options as login. On a terminal the email is checked first, then the \
            password is asked for twice; the server's password rule (from its /settings) is named \
            in the prompt and checked before anything is sent.
            """)

    @OptionGroup var account: AccountOptions
    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await client.run { context in
            let flow = SignInFlow(context: context, options: account)
            let target = try flow.target()
            let email = try flow.askEmail(target, scripted: account.passwordStdin)
            try confirmNewAccount(target, email: email, context: context)
            let rules = await flow.passwordRules(target)
            let password = try flow.askPassword(confirm: true, rules: rules)
            let prepared = try await flow.open(target, email: email)
            let result = try await flow.send(prepared, progress: "Creating your account…") { manager in
                do {
                    return try await manager.account.signUp(email: prepared.email, password: password)
                } catch let failure as AuthFailure where failure.code == "weak_password" {
                    throw rules.refusal
                }
            }
            switch result {
            case .signedIn(let session):
                let settings = try await flow.commit(prepared)
                context.terminal.output(
                    "Account created. Signed in to \(settings.server) as \(session.user.email ?? session.user.id)\(ProfileName.suffix(context.profile))."
                )
                context.terminal.output("Credentials are kept in the \(prepared.credentials.location).")
            case .confirmationRequired:
                // Remember the server for the coming `login`, unless the profile already
                // belongs to a signed-in account.
                if prepared.previous == nil { try prepared.settings.save(to: context.profileDirectory) }
                // The server answers an address that already has an account exactly like a new
                // one (so nobody can probe for accounts): say both.
                context.terminal.output("Sign-up sent. Unless \(email) already has an account, the server has mailed a confirmation link.")
                for line in MailDelivery.lines(server: target.server, email: email, what: "the confirmation link") { context.terminal.output(line) }
                context.terminal.output(
                    "Then run: latchkey login --server \(prepared.settings.server) --email \(email)\(ProfileName.flag(context.profile))")
                context.terminal.output(
                    "If the address already had an account, no mail comes: run 'latchkey login' or 'latchkey reset-password' instead.")
            }
        }
    }

    /// What this computer knows of an existing account, said before any password is asked: the
    /// profile signed in to this server with this email before. The server itself is not asked
    /// (it does not tell whether an address has an account).
    private func confirmNewAccount(_ target: SignInFlow.Target, email: String, context: ClientContext) throws {
        guard let remembered = target.rememberedEmail, remembered.lowercased() == email.lowercased() else { return }
        let note = "This profile has signed in to \(target.server) as \(remembered) before, so that account probably exists."
        let login = "latchkey login\(ProfileName.flag(context.profile))"
        guard context.terminal.inputIsTerminal, !account.passwordStdin else {
            context.terminal.message("latchkey: \(note)")
            return
        }
        context.terminal.message("latchkey: \(note) To use it, run '\(login)' (or 'latchkey reset-password' if you forgot the password).")
        let answer = context.terminal.ask("Create a new account anyway? [y/N] ")?.trimmingCharacters(in: .whitespaces).lowercased()
        guard answer == "y" || answer == "yes" else {
            throw ClientFailure(.usage, "No account created.", hint: "Run '\(login)' to sign in to the existing account.")
        }
    }
}
