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
            of its authenticator app: asked for on a terminal, or given with --totp-code; when its \
            second factor is a phone, the server texts the code and it is asked for on the terminal. \
            With --phone NUMBER the server texts a code to the number instead (creating the account \
            unless --no-create), and you type it; --code-stdin, --otp and --send-code work as with --code. \
            With --provider NAME (google, github, apple…) you sign in in the browser: the command \
            listens on http://127.0.0.1:PORT/callback (a random port, which the server must allow \
            as a redirect URL), opens the browser (or prints the URL with --no-browser), and waits \
            up to --browser-timeout seconds for the browser to come back. \
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
        name: .customLong("phone"),
        help: ArgumentHelp("Sign in with a code texted to this number (E.164, such as +15555550100) instead of a password.", valueName: "number"))
    var phone: String?

    @Option(
        name: .customLong("totp-code"),
        help: ArgumentHelp(
            "The 6-digit code your authenticator app shows, for an account with two-step verification (for scripts; asked for on a terminal).",
            valueName: "code"))
    var totpCode: String?

    @Option(
        name: .customLong("provider"),
        help: ArgumentHelp("Sign in with a provider in the browser instead of a password (google, github, apple…).", valueName: "name"))
    var provider: String?

    @Flag(name: .customLong("no-browser"), help: "With --provider: print the sign-in URL instead of opening a browser.")
    var noBrowser = false

    @Option(
        name: .customLong("browser-timeout"),
        help: ArgumentHelp("With --provider: seconds to wait for the browser to come back (default 300).", valueName: "seconds"))
    var browserTimeout: Double = 300

    @Option(name: .customLong("scopes"), help: ArgumentHelp("With --provider: extra scopes to ask the provider for.", valueName: "scopes"))
    var scopes: String?

    @OptionGroup var client: ClientOptions

    /// Whether this is an email-code sign-in.
    var usesCode: Bool { withCode || code.codeStdin || code.otp != nil || code.sendCode }

    func validate() throws {
        try code.validate()
        if usesCode, account.passwordStdin {
            throw ValidationError(
                "--password-stdin signs in with a password; --code, --code-stdin, --otp and --send-code with a code from an email. Choose one.")
        }
        if phone != nil, withCode || account.passwordStdin || account.email != nil || provider != nil {
            throw ValidationError("--phone signs in with a texted code: it takes no email, password, --code or --provider")
        }
        if noCreate, !usesCode, phone == nil { throw ValidationError("--no-create goes with --code or --phone") }
        if provider != nil, usesCode || account.passwordStdin || account.email != nil {
            throw ValidationError("--provider signs in in the browser: it takes no email, password or code")
        }
        if provider == nil, noBrowser || scopes != nil {
            throw ValidationError("--no-browser and --scopes go with --provider")
        }
        if let provider, provider.isEmpty || provider.contains(where: { !$0.isLetter && !$0.isNumber && $0 != "_" && $0 != "-" }) {
            throw ValidationError("--provider takes a provider's name, such as google or github")
        }
        guard browserTimeout > 0, browserTimeout <= 3600 else { throw ValidationError("--browser-timeout must be between 0 and 3600 seconds") }
        if totpCode != nil, code.sendCode {
            throw ValidationError("--send-code only mails a code; give --totp-code when you sign in with --otp CODE")
        }
    }

    func run() async throws {
        try await client.run { context in
            let flow = SignInFlow(context: context, options: account)
            if let provider {
                try await signInWithProvider(IdentityProvider(provider.lowercased()), flow: flow)
            } else if let phone {
                try await signInWithPhone(phone, flow: flow, context: context)
            } else if usesCode {
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

    /// PKCE in the browser: the server's `/authorize`, then the provider, then back to the
    /// loopback listener with `?code=`, traded with the verifier the manager stored.
    private func signInWithProvider(_ provider: IdentityProvider, flow: SignInFlow) async throws {
        let context = flow.context
        let target = try flow.target()
        var prepared = try await flow.open(target, email: "")
        let callback = try await LoopbackCallback.start()
        let redirect: URL?
        do {
            let url = try await flow.send(prepared, progress: "Preparing the sign-in…") { manager in
                try await manager.account.signInURL(provider: provider, redirectTo: callback.redirectURL, scopes: scopes)
            }
            if noBrowser || !BrowserOpener.open(url) {
                context.terminal.message("Open this URL in a browser to sign in with \(provider):")
                context.terminal.output(url.absoluteString)
            } else {
                context.terminal.message("Opened the browser to sign in with \(provider). If it did not open, visit:")
                context.terminal.message(url.absoluteString)
            }
            redirect = try await context.terminal.progress("Waiting for the browser…") { try await callback.wait(timeout: browserTimeout) }
        } catch {
            await callback.close()
            await prepared.manager.email.discardPendingLink()
            throw error
        }
        await callback.close()
        guard let redirect else {
            await prepared.manager.email.discardPendingLink()
            throw ClientFailure(
                .other, "No sign-in came back from the browser within \(Durations.spoken(browserTimeout)).",
                hint:
                    "Run 'latchkey login --provider \(provider)' again and finish the sign-in in the browser sooner, or give --browser-timeout SECONDS."
            )
        }
        let session = try await flow.send(prepared, progress: "Signing in…") { manager in
            try await manager.account.session(from: redirect)
        }
        var settings = prepared.settings
        settings.email = session.user.email
        prepared = SignInFlow.Prepared(
            previous: prepared.previous, settings: settings, credentials: prepared.credentials, manager: prepared.manager,
            email: session.user.email ?? "")
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
            try await requestCode(target, flow: flow, progress: "Asking the server to mail a code…") { backend in
                try await backend.sendSignInEmail(email: email, createUser: createUser, redirectTo: nil, codeChallenge: PKCE().challenge)
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

    /// `--send-code`: asks the server for a code without opening a session (nothing is stored).
    private func requestCode(
        _ target: SignInFlow.Target, flow: SignInFlow, progress: String, _ request: (GoTrueBackend) async throws -> Void
    ) async throws {
        let backend = try target.backend(flow.context)
        try await flow.send(target.server, progress: progress) {
            do {
                try await request(backend)
            } catch {
                throw AuthFailure(error)
            }
        }
    }

    /// A code texted to `number`: sent (unless `--otp` gives it), then typed or read from stdin.
    private func signInWithPhone(_ number: String, flow: SignInFlow, context: ClientContext) async throws {
        let target = try flow.target()
        let createUser = !noCreate
        let texted = createUser ? "a sign-in code" : "a sign-in code, if it has an account here"
        if code.sendCode {
            try await requestCode(target, flow: flow, progress: "Asking the server to text a code…") { backend in
                try await backend.sendSignInSMS(phone: number, createUser: createUser, channel: .sms)
            }
            context.terminal.output("Check \(number) for \(texted).")
            context.terminal.output(
                "Then run: latchkey login --server \(target.server) --phone \(number) --otp CODE\(ProfileName.flag(context.profile))")
            return
        }
        let prepared = try await flow.open(target, email: "")
        if code.otp == nil {
            try await flow.send(prepared, progress: "Asking the server to text a code…") { manager in
                try await manager.phone.sendSignInCode(phone: number, createUser: createUser)
            }
            context.terminal.message("Check \(number) for \(texted).")
        }
        let session = try await flow.askCode(given: try code.givenCode(context.terminal), server: target.server, from: "text message") { token in
            try await prepared.manager.phone.verify(phone: number, code: token)
        }
        try await finish(flow, prepared, session: session)
    }

    /// Removes the PKCE verifier ``AuthEmail/sendSignInEmail(email:createUser:redirectTo:captchaToken:)``
    /// saved beside the session for the mail's link (the terminal uses the code instead).
    private func forgetLinkVerifier(_ prepared: SignInFlow.Prepared) async {
        await prepared.manager.email.discardPendingLink()
    }

    private func finish(_ flow: SignInFlow, _ prepared: SignInFlow.Prepared, session signedIn: Session) async throws {
        let context = flow.context
        let session = try await secondFactor(flow, prepared, session: signedIn)
        let settings = try await flow.commit(prepared)
        let who =
            session.user.email.flatMap { $0.isEmpty ? nil : $0 } ?? session.user.phone.flatMap { $0.isEmpty ? nil : "+" + $0 } ?? session.user.id
        context.terminal.output("Signed in to \(settings.server) as \(who)\(ProfileName.suffix(context.profile)).")
        context.terminal.output("Credentials are kept in the \(prepared.credentials.location).")
    }
}

extension LoginCommand {
    /// The second step of an account with a verified authenticator app or phone factor: the
    /// session is `aal1` until a code is verified (an app's, or one texted to the phone).
    /// Without the code the half-finished session is ended on the server and not kept.
    private func secondFactor(_ flow: SignInFlow, _ prepared: SignInFlow.Prepared, session: Session) async throws -> Session {
        guard session.requiresSecondFactor, let factor = session.factorToAsk else {
            if totpCode != nil {
                flow.context.terminal.message("latchkey: this account has no authenticator app; --totp-code was not needed.")
            }
            return session
        }
        let needs = factor.displayedPhone.map { "a code texted to \($0)" } ?? "the 6-digit code from your authenticator app"
        do {
            return try await SecondFactorPrompt(context: flow.context, server: prepared.settings.server).verify(
                factor, with: prepared.manager, given: totpCode, reason: "This account uses two-step verification: it needs \(needs)")
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
