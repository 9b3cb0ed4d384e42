import ArgumentParser
import Foundation
import Latchkey

/// `latchkey login`: signs in once; every later command, in any shell, is signed in.
struct LoginCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "login",
        abstract: "Sign in and stay signed in across shells and reboots.",
        discussion: """
            The password is asked for without echo on a terminal; scripts pass --password-stdin. \
            With --code there is no password: the server mails a six-digit code (creating the \
            account unless --no-create), and you type it. Scripts send the code on standard \
            input (--code-stdin), or mail it with --send-code and sign in later with --otp CODE. \
            An account with two-step verification (latchkey mfa enroll) also needs the 6-digit code \
            of its authenticator app: asked for on a terminal, or given with --totp-code. \
            The server and the credential store are remembered for the profile; the tokens are \
            kept in the desktop keyring or an encrypted file, never in plain text.
            """)

    @OptionGroup var account: AccountOptions

    @Flag(name: .customLong("code"), help: "Sign in with a six-digit code mailed to you instead of a password (asked for on a terminal).")
    var withCode = false

    @OptionGroup var code: EmailCodeOptions

    @Flag(name: .customLong("no-create"), help: "With --code: do not create an account when the email has none (nothing is mailed then).")
    var noCreate = false

    @Option(
        name: .customLong("totp-code"),
        help: ArgumentHelp(
            "The 6-digit code your authenticator app shows, for an account with two-step verification (for scripts; asked for on a terminal).",
            valueName: "code"))
    var totpCode: String?

    @OptionGroup var client: ClientOptions

    /// Whether this is an email-code sign-in.
    var usesCode: Bool { withCode || code.codeStdin || code.otp != nil || code.sendCode }

    func validate() throws {
        try code.validate()
        if usesCode, account.passwordStdin {
            throw ValidationError(
                "--password-stdin signs in with a password; --code, --code-stdin, --otp and --send-code with a code from an email. Choose one.")
        }
        if noCreate, !usesCode { throw ValidationError("--no-create goes with --code") }
        if totpCode != nil, code.sendCode {
            throw ValidationError("--send-code only mails a code; give --totp-code when you sign in with --otp CODE")
        }
    }

    func run() async throws {
        try await client.run { context in
            let flow = SignInFlow(context: context, options: account)
            if usesCode {
                try await signInWithCode(flow, context: context)
            } else {
                try await signInWithPassword(flow, context: context)
            }
        }
    }

    private func signInWithPassword(_ flow: SignInFlow, context: ClientContext) async throws {
        let target = try flow.target()
        let email = try flow.askEmail(target, scripted: account.passwordStdin)
        let password = try flow.askPassword(confirm: false)
        let prepared = try await flow.open(target, email: email)
        let session = try await flow.send(prepared, progress: "Signing in…") { manager in
            try await manager.account.signIn(email: prepared.email, password: password)
        }
        try await finish(flow, prepared, session: session)
    }

    private func signInWithCode(_ flow: SignInFlow, context: ClientContext) async throws {
        let target = try flow.target()
        let email = try flow.askEmail(target, scripted: code.scripted)
        let createUser = !noCreate
        let mailed = createUser ? "a sign-in code" : "a sign-in code, if it has an account here"
        if code.sendCode {
            // Only the code matters to the command: the link's PKCE verifier is not kept, so the
            // link cannot be traded for a session by anyone.
            let backend = try target.backend(context)
            try await flow.send(target.server, progress: "Asking the server to mail a code…") {
                do {
                    try await backend.sendSignInEmail(email: email, createUser: createUser, redirectTo: nil, codeChallenge: PKCE().challenge)
                } catch {
                    throw AuthFailure(error)
                }
            }
            for line in MailDelivery.lines(server: target.server, email: email, what: mailed) { context.terminal.output(line) }
            context.terminal.output(
                "Then run: latchkey login --server \(target.server) --email \(email) --otp CODE\(ProfileName.flag(context.profile))")
            return
        }
        let prepared = try await flow.open(target, email: email)
        if code.otp == nil {
            try await flow.send(prepared, progress: "Asking the server to mail a code…") { manager in
                try await manager.email.sendSignInEmail(email: email, createUser: createUser)
            }
            for line in MailDelivery.lines(server: target.server, email: email, what: mailed) { context.terminal.message(line) }
        }
        let session: Session
        do {
            session = try await flow.askCode(given: try code.givenCode(context.terminal), server: target.server) { token in
                try await prepared.manager.email.verify(type: .email, email: email, token: token)
            }
        } catch {
            await forgetLinkVerifier(prepared)
            throw error
        }
        // The code was typed, so the link's PKCE verifier (kept by sendSignInEmail) is not needed.
        await forgetLinkVerifier(prepared)
        try await finish(flow, prepared, session: session)
    }

    /// Removes the PKCE verifier ``AuthEmail/sendSignInEmail(email:createUser:redirectTo:)``
    /// saved beside the session for the mail's link (the terminal uses the code instead).
    private func forgetLinkVerifier(_ prepared: SignInFlow.Prepared) async {
        await prepared.manager.email.discardPendingLink()
    }

    private func finish(_ flow: SignInFlow, _ prepared: SignInFlow.Prepared, session signedIn: Session) async throws {
        let context = flow.context
        let session = try await secondFactor(flow, prepared, session: signedIn)
        let settings = try await flow.commit(prepared)
        context.terminal.output("Signed in to \(settings.server) as \(session.user.email ?? session.user.id)\(ProfileName.suffix(context.profile)).")
        context.terminal.output("Credentials are kept in the \(prepared.credentials.location).")
    }
}

extension LoginCommand {
    /// The second step of an account with a verified authenticator app: the session is `aal1`
    /// until its code is verified. Without the code the half-finished session is ended on the
    /// server and not kept.
    private func secondFactor(_ flow: SignInFlow, _ prepared: SignInFlow.Prepared, session: Session) async throws -> Session {
        guard session.requiresSecondFactor, let factor = session.firstVerifiedTOTPFactor else {
            if totpCode != nil {
                flow.context.terminal.message("latchkey: this account has no authenticator app; --totp-code was not needed.")
            }
            return session
        }
        do {
            return try await SecondFactorPrompt(context: flow.context, server: prepared.settings.server).verify(
                factor, with: prepared.manager, given: totpCode,
                reason: "This account uses two-step verification: it needs the 6-digit code from your authenticator app")
        } catch {
            await prepared.manager.signOut(scope: .local)
            throw error
        }
    }
}

/// The options of commands that take a code mailed by the server (`login --code`,
/// `reset-password`).
struct EmailCodeOptions: ParsableArguments {
    @Flag(name: .customLong("code-stdin"), help: "Read the emailed code from standard input, once the mail is sent (for scripts).")
    var codeStdin = false

    @Option(name: .customLong("otp"), help: ArgumentHelp("A code already received by email (mails nothing).", valueName: "code"))
    var otp: String?

    @Flag(name: .customLong("send-code"), help: "Only ask the server to mail a code, then exit; finish later with --otp CODE.")
    var sendCode = false

    /// Whether the code comes from the command line or stdin (so nothing else can be asked).
    var scripted: Bool { codeStdin || otp != nil || sendCode }

    func validate() throws {
        if [codeStdin, otp != nil, sendCode].filter({ $0 }).count > 1 {
            throw ValidationError("--code-stdin, --otp and --send-code are different ways to give the code: use one")
        }
    }

    /// `--otp`, or the first line of stdin with `--code-stdin`; `nil` to ask on the terminal.
    func givenCode(_ terminal: Terminal) throws -> String? {
        if let otp { return otp }
        guard codeStdin else { return nil }
        guard let line = terminal.readStandardInputLine()?.trimmingCharacters(in: .whitespaces), !line.isEmpty else {
            throw ClientFailure.usage("--code-stdin: no code on standard input.")
        }
        return line
    }
}
