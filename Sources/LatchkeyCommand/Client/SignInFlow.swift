import Foundation
import Latchkey

/// What `login` and `signup` share: deciding the server and the store, asking for the
/// credentials, and saving the outcome so the next process is signed in.
struct SignInFlow {
    let context: ClientContext
    let options: AccountOptions

    /// Everything needed to send the sign-in, before anything touches the network.
    struct Prepared {
        let previous: ProfileSettings?
        let settings: ProfileSettings
        let credentials: ProfileCredentials
        let manager: SessionManager
        let email: String
        let password: String
    }

    /// Resolves the server and store and asks for the email and password. With
    /// `confirmPassword` a prompted password is asked twice (sign-up).
    func prepare(confirmPassword: Bool) async throws -> Prepared {
        let previous = try context.settings()
        let server = try resolveServer(previous: previous)
        let apiKey = options.apiKey ?? (previous?.server == server ? previous?.apiKey : nil)
        let email = try askEmail(default: previous?.server == server ? previous?.email : nil)
        let password = try askPassword(confirm: confirmPassword)

        _ = try context.home.prepareProfileDirectory(context.profile)
        let credentials = try await context.terminal.progress("Opening the credential store…") {
            try await context.storeForSignIn()
        }
        let settings = ProfileSettings(server: server, apiKey: apiKey, store: credentials.kind, email: email, signedInAt: nil)
        let manager = context.manager(backend: try context.backend(settings), credentials: credentials)
        return Prepared(previous: previous, settings: settings, credentials: credentials, manager: manager, email: email, password: password)
    }

    /// Makes the signed-in session the profile's: checks it reads back from the store, removes
    /// a session left in another store, and saves the settings.
    /// Sends the sign-in or sign-up to the server behind a progress line; a refusal becomes the
    /// command's words and exit code.
    func send<T>(_ prepared: Prepared, progress label: String, _ request: (SessionManager) async throws -> T) async throws -> T {
        do {
            return try await context.terminal.progress(label) { try await request(prepared.manager) }
        } catch let failure as AuthFailure {
            throw ClientFailure(failure, profile: context.profile, server: prepared.settings.server, signingIn: true)
        }
    }

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
            throw ClientFailure(.other, "Signed in, but the session could not be saved in the \(prepared.credentials.location), so you are not signed in.",
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

    /// `--server`, else the profile's, else `LATCHKEY_SERVER`, else `latchkey serve`'s default.
    private func resolveServer(previous: ProfileSettings?) throws -> String {
        let text = options.server ?? previous?.server
            ?? context.environment["LATCHKEY_SERVER"].flatMap { $0.isEmpty ? nil : $0 } ?? ClientContext.defaultServer
        return try ServerAddress.parse(text).absoluteString
    }

    private func askEmail(default remembered: String?) throws -> String {
        if let email = options.email?.trimmingCharacters(in: .whitespaces), !email.isEmpty { return email }
        if options.passwordStdin || !context.terminal.inputIsTerminal {
            throw ClientFailure.usage("--email is required when there is no terminal to ask on.")
        }
        let prompt = remembered.map { "Email [\($0)]: " } ?? "Email: "
        guard let answer = context.terminal.ask(prompt)?.trimmingCharacters(in: .whitespaces) else {
            throw ClientFailure.usage("No email given.")
        }
        if answer.isEmpty, let remembered { return remembered }
        guard !answer.isEmpty else { throw ClientFailure.usage("No email given.") }
        return answer
    }

    private func askPassword(confirm: Bool) throws -> String {
        if options.passwordStdin {
            guard let password = context.terminal.readStandardInputLine(), !password.isEmpty else {
                throw ClientFailure.usage("--password-stdin: no password on standard input.")
            }
            return password
        }
        guard context.terminal.inputIsTerminal else {
            throw ClientFailure.usage("No terminal to ask for the password.", hint: "Pass --password-stdin and send the password on standard input.")
        }
        guard let password = context.terminal.askSecret("Password: "), !password.isEmpty else {
            throw ClientFailure.usage("No password given.")
        }
        if confirm {
            guard context.terminal.askSecret("Repeat password: ") == password else {
                throw ClientFailure.usage("The passwords do not match.")
            }
        }
        return password
    }
}
