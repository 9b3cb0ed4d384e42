import ArgumentParser
import Latchkey

/// `latchkey signup`: creates an account, and signs in when the server confirms it at once.
struct SignupCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "signup",
        abstract: "Create an account (and sign in, when the server needs no email confirmation).",
        discussion: "Takes the same options as login. On a terminal the password is asked for twice.")

    @OptionGroup var account: AccountOptions
    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await client.run { context in
            let flow = SignInFlow(context: context, options: account)
            let prepared = try await flow.prepare(confirmPassword: true)
            let result = try await flow.send(prepared, progress: "Creating your account…") { manager in
                try await manager.signUp(email: prepared.email, password: prepared.password)
            }
            switch result {
            case .signedIn(let session):
                let settings = try await flow.commit(prepared)
                context.terminal.output("Account created. Signed in to \(settings.server) as \(session.user.email ?? session.user.id)\(ProfileName.suffix(context.profile)).")
                context.terminal.output("Credentials are kept in the \(prepared.credentials.location).")
            case .confirmationRequired:
                // Remember the server for the coming `login`, unless the profile already
                // belongs to a signed-in account.
                if prepared.previous == nil { try prepared.settings.save(to: context.profileDirectory) }
                context.terminal.output("Account created. Check \(prepared.email) for the confirmation link.")
                context.terminal.output("Then run: latchkey login --server \(prepared.settings.server) --email \(prepared.email)\(ProfileName.flag(context.profile))")
            }
        }
    }
}
