import Foundation
import Latchkey
import Logging

/// Everything a client command works with, injected: the environment, the streams, the clock,
/// the HTTP transport and the keyring. Commands build it with ``live(_:)``; nothing in the
/// client reads a global.
struct ClientContext: Sendable {
    /// The profile the command acts on.
    let profile: String
    /// Where state is kept.
    let home: StateDirectory
    /// The process environment (for `LATCHKEY_SERVER`).
    let environment: [String: String]
    /// The standard streams.
    let terminal: Terminal
    /// The time source of the session manager.
    let clock: any SessionClock
    /// How requests reach the server.
    let transport: any HTTPTransport
    /// Opens the desktop keyring for a service name.
    let keyring: @Sendable (String) -> any CredentialStore
    /// The library's logger (silent unless `--verbose`).
    let logger: Logger
    /// Seconds to wait for the server.
    let timeout: TimeInterval
    /// `--store`, when given.
    let storeOption: StoreOption?

    /// The server `login` and `signup` use when none is given or remembered: `latchkey serve`'s
    /// default address.
    static let defaultServer = "http://127.0.0.1:9999"

    /// The context of this process.
    static func live(_ options: ClientOptions) throws -> ClientContext {
        let environment = ProcessInfo.processInfo.environment
        let verbose = options.verbose
        var logger = Logger(label: "latchkey.client") { label in
            verbose ? StreamLogHandler.standardError(label: label) as any LogHandler : SwiftLogNoOpLogHandler()
        }
        logger.logLevel = verbose ? Logger.Level.info : Logger.Level.critical
        return ClientContext(
            profile: try options.profileName(environment: environment),
            home: .resolve(environment: environment),
            environment: environment,
            terminal: .standard(),
            clock: SystemSessionClock(),
            transport: URLSessionTransport(),
            keyring: { SecretServiceCredentialStore(service: $0) },
            logger: logger,
            timeout: options.timeout,
            storeOption: options.store)
    }

    /// The profile's directory (it may not exist yet).
    var profileDirectory: URL { home.profileDirectory(profile) }

    /// The profile's settings, or `nil` when it never signed in.
    func settings() throws -> ProfileSettings? {
        try ProfileSettings.load(from: profileDirectory)
    }

    /// The store of `kind` for this profile.
    func credentials(_ kind: CredentialStoreKind) -> ProfileCredentials {
        ProfileCredentials.open(kind, profile: profile, profileDirectory: profileDirectory, home: home, keyring: keyring)
    }

    /// Why the desktop keyring cannot keep a session, or `nil` when it can. A lookup alone is
    /// not enough (a locked collection answers lookups with "nothing"), so this writes, reads
    /// back and deletes a probe item.
    func keyringProblem() async -> StorageError? {
        let store = keyring(ProfileCredentials.keyringService)
        let key = "probe:\(profile)@\(home.root.path)"
        do {
            try await store.save(Data("probe".utf8), key: key)
            let readBack = try await store.load(key: key)
            try await store.delete(key: key)
            return readBack == Data("probe".utf8) ? nil : .corrupted(reason: "the keyring did not return what was stored")
        } catch {
            try? await store.delete(key: key)
            return error as? StorageError ?? .unavailable(reason: "keyring failure")
        }
    }

    /// The store a sign-in saves to: `--store`, with `auto` (the default) choosing the keyring
    /// when it can keep a session and the encrypted file store otherwise.
    func storeForSignIn() async throws -> ProfileCredentials {
        switch storeOption ?? .auto {
        case .file:
            return credentials(.file)
        case .keyring:
            if let problem = await keyringProblem() {
                let what = if case .locked = problem { "The desktop keyring is locked." } else { "No desktop keyring answered." }
                throw ClientFailure(.other, what, hint: ClientFailure.storageHint(problem))
            }
            return credentials(.keyring)
        case .auto:
            return credentials(await keyringProblem() == nil ? .keyring : .file)
        }
    }

    /// The store holding a signed-in profile's session: the one it signed in with, unless
    /// `--store keyring|file` says otherwise.
    func storeInUse(_ settings: ProfileSettings) -> ProfileCredentials {
        switch storeOption {
        case .keyring: credentials(.keyring)
        case .file: credentials(.file)
        case .auto, nil: credentials(settings.store)
        }
    }

    /// The GoTrue backend for `settings`' server.
    func backend(_ settings: ProfileSettings) throws -> GoTrueBackend {
        let url = try ServerAddress.parse(settings.server)
        return GoTrueBackend(configuration: .init(baseURL: url, apiKey: settings.apiKey, requestTimeout: timeout), transport: transport)
    }

    /// A session manager for one command run: no background refresh (the process is about to
    /// exit), and the cross-process refresh lock shared by every run on this profile, so
    /// concurrent `latchkey token` calls spend a refresh token once.
    func manager(backend: any AuthBackend, credentials: ProfileCredentials) -> SessionManager {
        var configuration = SessionManagerConfiguration()
        configuration.storageKey = credentials.key
        configuration.launchTimeout = timeout
        configuration.automaticRefresh = false
        configuration.crossProcessLockURL = profileDirectory.appendingPathComponent("refresh.lock")
        configuration.crossProcessLockTimeout = max(30, 2 * timeout)
        return SessionManager(backend: backend, store: credentials.store, configuration: configuration, clock: clock, logger: logger)
    }
}

/// Server URLs given to `--server`.
enum ServerAddress {
    /// `text` as an http(s) URL with a host, without a trailing slash.
    static func parse(_ text: String) throws -> URL {
        var trimmed = text.trimmingCharacters(in: .whitespaces)
        while trimmed.hasSuffix("/") { trimmed.removeLast() }
        guard let url = URL(string: trimmed), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
            let host = url.host, !host.isEmpty
        else {
            throw ClientFailure.usage(
                "'\(text)' is not a server URL.", hint: "Use a URL like http://127.0.0.1:9999 or https://<project>.supabase.co/auth/v1.")
        }
        return url
    }
}
