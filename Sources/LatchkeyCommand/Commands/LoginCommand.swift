import ArgumentParser
import Latchkey

/// `latchkey login`: signs in once; every later command, in any shell, is signed in.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in and stay signed in across shells and reboots.",
        discussion: """
            The password is asked for without echo on a terminal; scripts pass --password-stdin. \
            The server and the credential store are remembered for the profile; the tokens are \
            kept in the desktop keyring or an encrypted file, never in plain text.
            """)

    @OptionGroup var account: AccountOptions
    @OptionGroup var client: ClientOptions

    func run() async throws {
        try await client.run { context in
            let flow = SignInFlow(context: context, options: account)
            let prepared = try await flow.prepare(confirmPassword: false)
            let session = try await flow.send(prepared, progress: "Signing in…") { manager in
                try await manager.signIn(email: prepared.email, password: prepared.password)
            }
            let settings = try await flow.commit(prepared)
            context.terminal.output("Signed in to \(settings.server) as \(session.user.email ?? session.user.id)\(ProfileName.suffix(context.profile)).")
            context.terminal.output("Credentials are kept in the \(prepared.credentials.location).")
        }
    }
}
