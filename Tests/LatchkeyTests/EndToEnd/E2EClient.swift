import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Logging
import Testing

@testable import Latchkey

/// One installation of an app talking to a ``TestServer``: a store that survives "relaunches",
/// an install marker, a client clock the test moves, and a transport that counts requests.
/// ``launch()`` creates a new ``SessionManager`` as a cold start would.
final class E2EApp: Sendable {
    let server: TestServer
    let store: any CredentialStore
    let marker: MemoryInstallMarker
    let clock: ManualSessionClock
    let transport = SpyTransport()
    let configure: @Sendable (inout SessionManagerConfiguration) -> Void
    let logger: Logger

    init(
        server: TestServer, store: any CredentialStore = MemoryCredentialStore(), clock: ManualSessionClock = ManualSessionClock(Date()),
        logger: Logger = .quiet, configure: @escaping @Sendable (inout SessionManagerConfiguration) -> Void = { _ in }
    ) {
        self.server = server
        self.store = store
        self.marker = MemoryInstallMarker(isSet: false)
        self.clock = clock
        self.configure = configure
        self.logger = logger
    }

    /// A cold start: a fresh manager over the same store, marker and clock.
    func launch() -> SessionManager {
        var configuration = SessionManagerConfiguration()
        configure(&configuration)
        return SessionManager(
            backend: server.backend(transport: transport), store: store, configuration: configuration,
            installMarker: marker, clock: clock, logger: logger)
    }

    /// First launch and sign-up of a new account (auto-confirmed); returns the manager and session.
    func signUp(email: String = uniqueEmail(), password: String = "correct horse battery") async throws -> (SessionManager, Session) {
        let manager = launch()
        _ = await manager.restore()
        guard case .signedIn(let session) = try await manager.account.signUp(email: email, password: password) else {
            throw AuthFailure(.unknown)
        }
        return (manager, session)
    }

    func storedRefreshToken(key: String = "latchkey.session") async throws -> String? {
        guard let data = try await store.load(key: key) else { return nil }
        return try StoredSession.decode(data).session.refreshToken
    }
}

/// The files several "processes" of one app share (an app and its extension, two runs of a
/// command-line program): an encrypted credential store and a refresh lock file. Each
/// ``process()`` has its own store instance, clock, transport and managers: only the files are
/// shared. Remove the files with ``remove()``.
final class SharedInstallation: Sendable {
    let server: TestServer
    let directory = temporaryDirectory("shared-store")

    init(server: TestServer) {
        self.server = server
    }

    var lockURL: URL { directory.appendingPathComponent("refresh.lock") }

    /// A process over the shared files, with automatic refresh off (the test decides when).
    func process() -> E2EApp {
        let store = EncryptedFileCredentialStore(directory: directory, keySource: .keyFile(directory.appendingPathComponent(".key")))
        let lockURL = lockURL
        return E2EApp(server: server, store: store) {
            $0.crossProcessLockURL = lockURL
            $0.automaticRefresh = false
        }
    }

    /// A process that is not the first to run: its install marker is set, so its launch restores
    /// what the others stored.
    func laterProcess() async throws -> E2EApp {
        let app = process()
        try await app.marker.set()
        return app
    }

    /// A process that signs up to a new account, and a later one that restores what it stored.
    func twoProcesses() async throws -> TwoProcesses {
        let first = process()
        let (firstManager, session) = try await first.signUp()
        let second = try await laterProcess()
        let secondManager = second.launch()
        try #require(await secondManager.restore() == .signedIn(session))
        return TwoProcesses(first: first, firstManager: firstManager, session: session, second: second, secondManager: secondManager)
    }

    func remove() { removeDirectory(directory) }
}

/// Two processes of one app signed in to the same session (``SharedInstallation/twoProcesses()``).
struct TwoProcesses {
    let first: E2EApp
    /// The manager that signed up.
    let firstManager: SessionManager
    let session: Session
    let second: E2EApp
    /// The second process's manager, restored.
    let secondManager: SessionManager
}

/// Runs `body` against a fresh server with the files of a ``SharedInstallation``, removed
/// afterwards.
func withSharedInstallation(_ body: (SharedInstallation) async throws -> Void) async throws {
    try await withTestServer { server in
        let shared = SharedInstallation(server: server)
        defer { shared.remove() }
        try await body(shared)
    }
}
