import Foundation
import Latchkey

/// What `login`, `signup` and `reset-password` share: deciding the server and the store,
/// asking for the email, the password and emailed codes, and saving the outcome so the next
/// process is signed in.
struct SignInFlow {
    let context: ClientContext
    let options: AccountOptions

    /// How many times a terminal prompt is asked again after a wrong answer.
    static let attempts = 3

    /// The server a command talks to, decided before anything is asked.
    struct Target {
        /// The profile's settings before this command, if it ever signed in.
        let previous: ProfileSettings?
        /// The server URL.
        let server: String
        /// The anon key, given or remembered for this server.
        let apiKey: String?

        /// The email the profile remembers for this server.
        var rememberedEmail: String? { previous?.server == server ? previous?.email : nil }

        /// A backend for calls made before a credential store is open (`GET /settings`, the
        /// requests that only mail something).
        func backend(_ context: ClientContext, timeout: TimeInterval? = nil) throws -> GoTrueBackend {
            let url = try ServerAddress.parse(server)
            return GoTrueBackend(
                configuration: .init(baseURL: url, apiKey: apiKey, requestTimeout: timeout ?? context.timeout), transport: context.transport)
        }
    }

    /// Everything needed to send the sign-in, before anything touches the network.
    struct Prepared {
        let previous: ProfileSettings?
        let settings: ProfileSettings
        let credentials: ProfileCredentials
        let manager: SessionManager
        let email: String
    }

    /// The server: `--server`, else the profile's, else `LATCHKEY_SERVER`, else `latchkey
    /// serve`'s default; and its anon key.
    func target() throws -> Target {
        let previous = try context.settings()
        let text =
            options.server ?? previous?.server
            ?? context.environment["LATCHKEY_SERVER"].flatMap { $0.isEmpty ? nil : $0 } ?? ClientContext.defaultServer
        let server = try ServerAddress.parse(text).absoluteString
        let apiKey = options.apiKey ?? (previous?.server == server ? previous?.apiKey : nil)
        return Target(previous: previous, server: server, apiKey: apiKey)
    }

    /// The server's password rule, asked for briefly; none when it does not answer.
    func passwordRules(_ target: Target) async -> PasswordRules {
        guard let backend = try? target.backend(context, timeout: min(context.timeout, 5)) else { return PasswordRules() }
        return (try? await context.terminal.progress("Asking the server for its password rules…") { await PasswordRules.fetch(backend) })
            ?? PasswordRules()
    }

    /// Opens the credential store and a session manager for `email` on `target`'s server.
    func open(_ target: Target, email: String) async throws -> Prepared {
        _ = try context.home.prepareProfileDirectory(context.profile)
        let credentials = try await context.terminal.progress("Opening the credential store…") {
            try await context.storeForSignIn()
        }
        let settings = ProfileSettings(server: target.server, apiKey: target.apiKey, store: credentials.kind, email: email, signedInAt: nil)
        let manager = context.manager(backend: try context.backend(settings), credentials: credentials)
        return Prepared(previous: target.previous, settings: settings, credentials: credentials, manager: manager, email: email)
    }

    /// Sends a request to the server behind a progress line; a refusal becomes the command's
    /// words and exit code.
    func send<T>(_ server: String, progress label: String, _ request: () async throws -> T) async throws -> T {
        do {
            return try await context.terminal.progress(label) { try await request() }
        } catch let failure as AuthFailure {
            throw ClientFailure(failure, profile: context.profile, server: server, signingIn: true)
        }
    }

    /// Sends the sign-in or sign-up to the server behind a progress line; a refusal becomes the
    /// command's words and exit code.
    func send<T>(_ prepared: Prepared, progress label: String, _ request: (SessionManager) async throws -> T) async throws -> T {
        try await send(prepared.settings.server, progress: label) { try await request(prepared.manager) }
    }

    /// Makes the signed-in session the profile's: checks it reads back from the store, removes
    /// a session left in another store, and saves the settings.
    func commit(_ prepared: Prepared) async throws -> ProfileSettings {
        var problem: StorageError?
        do {
            if try await prepared.credentials.store.load(key: prepared.credentials.key) == nil {
                problem = .unavailable(reason: "nothing stored")
            }
        } catch {
            problem = error as? StorageError ?? .unavailable(reason: "store failure")
        }
        if let problem {
            // A session nobody can use again: end it on the server rather than leave it live.
            await prepared.manager.signOut(scope: .local)
            throw ClientFailure(
                .other, "Signed in, but the session could not be saved in the \(prepared.credentials.location), so you are not signed in.",
                hint: ClientFailure.storageHint(problem))
        }
        if let previous = prepared.previous, previous.store != prepared.credentials.kind {
            let old = context.credentials(previous.store)
            try? await old.store.delete(key: old.key)
        }
        var settings = prepared.settings
        settings.signedInAt = context.clock.now()
        try settings.save(to: context.profileDirectory)
        return settings
    }

    // MARK: - Asking

    /// The email: `--email`, else asked for on a terminal (the remembered one is the default),
    /// else — for scripts, and with `--password-stdin` — the one the profile remembers for this
    /// server. Checked for shape before anything else is asked. `scriptFlag` names the option
    /// that reads stdin, for the message when no email is known.
    func askEmail(_ target: Target, scripted: Bool) throws -> String {
        let remembered = target.rememberedEmail
        if let given = options.email?.trimmingCharacters(in: .whitespaces), !given.isEmpty {
            guard EmailAddress.isValid(given) else { throw ClientFailure.usage(EmailAddress.problem(given)) }
            return given
        }
        if scripted || !context.terminal.inputIsTerminal {
            guard let remembered else {
                throw ClientFailure.usage(
                    "--email is required when there is no terminal to ask on (this profile remembers no email for \(target.server)).")
            }
            context.terminal.message("latchkey: using the email this profile remembers: \(remembered)")
            return remembered
        }
        let prompt = remembered.map { "Email [\($0)]: " } ?? "Email: "
        for attempt in 1...Self.attempts {
            guard let answer = context.terminal.ask(prompt)?.trimmingCharacters(in: .whitespaces) else {
                throw ClientFailure.usage("No email given.")
            }
            let email = answer.isEmpty ? remembered ?? "" : answer
            if email.isEmpty {
                context.terminal.message("latchkey: type the account's email address.")
            } else if EmailAddress.isValid(email) {
                return email
            } else if attempt < Self.attempts {
                context.terminal.message("latchkey: \(EmailAddress.problem(email)) Try again.")
            } else {
                throw ClientFailure.usage(EmailAddress.problem(email))
            }
        }
        throw ClientFailure.usage("No email given.")
    }

    /// The password: the first line of stdin with `--password-stdin`, else asked for without
    /// echo. With `confirm` (a new password) it must keep `rules` and is asked twice; on a
    /// terminal a refused one is asked again.
    func askPassword(confirm: Bool, rules: PasswordRules = PasswordRules(), label: String = "Password") throws -> String {
        if options.passwordStdin {
            guard let password = context.terminal.readStandardInputLine(), !password.isEmpty else {
                throw ClientFailure.usage("--password-stdin: no password on standard input.")
            }
            if confirm, let problem = rules.problem(password) { throw ClientFailure.usage(problem) }
            return password
        }
        guard context.terminal.inputIsTerminal else {
            throw ClientFailure.usage("No terminal to ask for the password.", hint: "Pass --password-stdin and send the password on standard input.")
        }
        let rule = confirm ? rules.summary.map { " (\($0))" } ?? "" : ""
        for attempt in 1...Self.attempts {
            guard let password = context.terminal.askSecret("\(label)\(rule): "), !password.isEmpty else {
                throw ClientFailure.usage("No password given.")
            }
            guard confirm else { return password }
            var problem = rules.problem(password)
            if problem == nil, context.terminal.askSecret("Repeat \(label.lowercased()): ") != password {
                problem = "The passwords do not match."
            }
            guard let problem else { return password }
            if attempt == Self.attempts { throw ClientFailure.usage(problem) }
            context.terminal.message("latchkey: \(problem) Try again.")
        }
        throw ClientFailure.usage("No password given.")
    }

    /// Asks for an emailed code and hands it to `verify` until it is accepted: on a terminal up
    /// to ``attempts`` times (a wrong or expired code is asked again); `given` (`--otp` or
    /// `--code-stdin`) is tried once.
    func askCode<T>(given: String?, server: String, from source: String = "email", verify: (String) async throws -> T) async throws -> T {
        let digits = source == "email" ? "six digits" : "the digits"
        let prompt = CodePrompt(
            terminal: context.terminal, question: "Code from the \(source): ", normalize: EmailCode.normalized,
            shape: "the code is the \(digits) in the \(source).",
            noTerminal: ClientFailure.usage(
                "No terminal to ask for the code.", hint: "Pass --code-stdin and send the code on standard input, or --otp CODE."),
            wrong: .wrongCode, retryAdvice: "Check the newest \(source) and try again.")
        return try await prompt.run(
            given: given, notACode: { "'\($0)' is not a code from the \(source): it has \(digits == "six digits" ? digits : "six to ten digits")." }
        ) { code in
            try await verifyCode(code, server: server, verify: verify)
        }
    }

    private func verifyCode<T>(_ code: String, server: String, verify: (String) async throws -> T) async throws -> T {
        do {
            return try await context.terminal.progress("Checking the code…") { try await verify(code) }
        } catch let failure as AuthFailure where failure.code == "otp_expired" {
            throw ClientFailure.wrongCode
        } catch let failure as AuthFailure {
            throw ClientFailure(failure, profile: context.profile, server: server, signingIn: true)
        }
    }
}

extension ClientFailure {
    /// A code the server refused: wrong, spent, for another address or expired (the server
    /// does not say which).
    static let wrongCode = ClientFailure(
        .notSignedIn, "That code is wrong or has expired.",
        hint: "A code works once, for a limited time, and only for the address it was mailed to; run the command again for a new email.")
}
