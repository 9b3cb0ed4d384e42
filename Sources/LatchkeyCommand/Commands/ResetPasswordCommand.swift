import ArgumentParser
import Foundation
import Latchkey

/// `latchkey reset-password`: "forgot password" at a terminal. The server mails a code; the
/// code signs in, a new password is set, and the profile stays signed in.
struct ResetPasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "reset-password",
        abstract: "Forgot your password? Get a code by email, choose a new password, and stay signed in.",
        discussion: """
            Asks for the email (the profile's is the default), has the server mail a six-digit \
            code, asks for it, then for the new password twice (the server's rule from its \
            /settings is named and checked). Scripts: --code-stdin reads the code from the first \
            line of standard input once the mail is sent, --otp CODE gives a code received \
            earlier (after --send-code), and --password-stdin reads the new password from the \
            next line. The server answers the same whether or not the address has an account \
            (no code is mailed to an address without one).
            """)

    @OptionGroup var account: AccountOptions
    @OptionGroup var code: EmailCodeOptions
    @OptionGroup var client: ClientOptions

    func validate() throws {
        try code.validate()
        if code.sendCode, account.passwordStdin {
            throw ValidationError("--send-code only mails a code; give --password-stdin to the run with --otp CODE")
        }
    }

    func run() async throws {
        try await client.run { context in
            let flow = SignInFlow(context: context, options: account)
            let target = try flow.target()
            let email = try flow.askEmail(target, scripted: code.scripted || account.passwordStdin)
            if code.otp == nil {
                // The plain recovery mail (no PKCE): besides the code, its link opens the
                // server's own set-new-password page when the server's site is itself.
                let backend = try target.backend(context)
                try await flow.send(target.server, progress: "Asking the server to mail a code…") {
                    do {
                        try await backend.recoverPassword(email: email)
                    } catch {
                        throw AuthFailure(error)
                    }
                }
                let lines = MailDelivery.lines(
                    server: target.server, email: email, what: "a password-reset code (none comes if it has no account here)")
                if code.sendCode {
                    for line in lines { context.terminal.output(line) }
                    context.terminal.output(
                        "Then run: latchkey reset-password --server \(target.server) --email \(email) --otp CODE\(ProfileName.flag(context.profile))")
                    return
                }
                for line in lines { context.terminal.message(line) }
            }
            let rules = await flow.passwordRules(target)
            let prepared = try await flow.open(target, email: email)
            let given = try code.givenCode(context.terminal)
            // A script's password is read and checked before the code is spent on it.
            let scriptedPassword = account.passwordStdin ? try flow.askPassword(confirm: true, rules: rules, label: "New password") : nil
            _ = try await flow.askCode(given: given, server: target.server) { token in
                try await prepared.manager.email.verify(type: .recovery, email: email, token: token)
            }
            let user: User
            do {
                let password = try scriptedPassword ?? flow.askPassword(confirm: true, rules: rules, label: "New password")
                user = try await flow.send(prepared, progress: "Setting the new password…") { manager in
                    do {
                        return try await manager.account.update(UserUpdate(password: password))
                    } catch let failure as AuthFailure where failure.code == "weak_password" {
                        throw rules.refusal
                    } catch let failure as AuthFailure where failure.code == "same_password" {
                        throw ClientFailure(
                            .usage, "The new password is the same as the old one.",
                            hint: "Choose another one, or sign in with it: 'latchkey login\(ProfileName.flag(context.profile))'.")
                    }
                }
            } catch {
                // The code is spent; without a new password the session it gave is not kept.
                await prepared.manager.signOut(scope: .local)
                var failure = ClientOptions.failure(for: error)
                failure.message += " The password was not changed."
                failure.hint = failure.hint ?? "Run 'latchkey reset-password' again for a new code."
                throw failure
            }
            let settings = try await flow.commit(prepared)
            context.terminal.output(
                "Password changed. Signed in to \(settings.server) as \(user.email ?? email)\(ProfileName.suffix(context.profile)).")
            context.terminal.output("Credentials are kept in the \(prepared.credentials.location).")
        }
    }
}
