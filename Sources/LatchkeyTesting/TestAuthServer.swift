import Foundation
import Latchkey
import LatchkeyServer
import Logging
import NIOCore

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real Latchkey server, running inside the test process on a free port with a temporary
/// database: nothing of it is mocked.
///
/// ```swift
/// let clock = ManualServerClock()
/// try await TestAuthServer.with(clock: clock) { server in
///     let manager = SessionManager(backend: server.backend(), store: MemoryCredentialStore())
///     try await manager.account.signUp(email: "ada@example.com", password: "correct horse battery")
///     clock.advance(by: 3600)                  // the access token has expired
///     _ = try await manager.session()          // refreshed against the real server
/// }
/// ```
///
/// Sign-ups are confirmed at once, bcrypt runs at its lowest cost and rate limits are off unless
/// `configure` says otherwise; emails land in ``outboxDirectory``, where
/// ``linkToken(to:type:)`` finds a link's token to pass to `verify`, ``emailCode(to:)`` an
/// email's six-digit code, and ``followLink(to:type:)`` opens a link as a browser would. The
/// links name the server's own URL (or the configured `externalURL`). The server's clock is a
/// ``ManualServerClock`` unless another is passed.
public final class TestAuthServer: Sendable {
    /// Where the server answers, such as `http://127.0.0.1:53412`.
    public let baseURL: URL
    /// The port the server bound.
    public let port: Int
    /// A `service_role` key for `/admin` endpoints.
    public let serviceRoleKey: String
    /// An `anon` key, as Supabase clients send in their `apikey` header.
    public let anonKey: String
    /// The server's data directory (database, secret, outbox).
    public let dataDirectory: URL
    /// Where the server writes emails, one `.eml` file each.
    public let outboxDirectory: URL
    /// The server's clock: a ``ManualServerClock`` unless the test passed another.
    public let clock: any ServerClock
    /// The configuration the server runs with.
    public let configuration: ServerConfiguration

    private let ownsDataDirectory: Bool
    private let run: ServiceRun

    private init(
        baseURL: URL, port: Int, keys: ServerKeys, configuration: ServerConfiguration, clock: any ServerClock,
        ownsDataDirectory: Bool, run: ServiceRun
    ) {
        self.baseURL = baseURL
        self.port = port
        self.serviceRoleKey = keys.serviceRole
        self.anonKey = keys.anon
        self.dataDirectory = configuration.dataDirectory
        self.outboxDirectory = configuration.dataDirectory.appendingPathComponent("outbox")
        self.clock = clock
        self.configuration = configuration
        self.ownsDataDirectory = ownsDataDirectory
        self.run = run
    }

    /// Starts a server and returns once it accepts connections.
    ///
    /// - Parameters:
    ///   - dataDirectory: where the data lives; `nil` makes a temporary directory that
    ///     ``shutdown()`` removes. Pass the ``dataDirectory`` (and `port`) of a stopped server to
    ///     start the same server again.
    ///   - port: the port to bind; `0` picks a free one.
    ///   - clock: the server's clock.
    ///   - mailer: delivers emails; `nil` writes them to ``outboxDirectory``.
    ///   - logger: the server's logger; silent by default.
    ///   - metrics: where metrics go; `nil`: the server's own registry (`GET /metrics`).
    ///   - configure: changes to the test defaults (set `databaseURL` for PostgreSQL).
    public static func start(
        dataDirectory: URL? = nil,
        port: Int = 0,
        clock: any ServerClock = ManualServerClock(),
        mailer: (any Mailer)? = nil,
        logger: Logger = Logger(label: "latchkey.testing", factory: { _ in SwiftLogNoOpLogHandler() }),
        metrics: ServerMetrics? = nil,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestAuthServer {
        try await start(
            dataDirectory: dataDirectory, port: port, clock: clock, mailer: mailer, store: nil, logger: logger, metrics: metrics,
            configure: configure)
    }

    /// Starts a server over `store` (`nil`: the store the configuration names), for the
    /// package's own tests.
    package static func start(
        dataDirectory: URL? = nil,
        port: Int = 0,
        clock: any ServerClock = ManualServerClock(),
        mailer: (any Mailer)? = nil,
        store: (any AuthStore)?,
        smsSender: (any SMSSender)? = nil,
        logger: Logger = Logger(label: "latchkey.testing", factory: { _ in SwiftLogNoOpLogHandler() }),
        metrics: ServerMetrics? = nil,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestAuthServer {
        let ownsDirectory = dataDirectory == nil
        let directory =
            dataDirectory
            ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("latchkey-test-\(UUID().uuidString.prefix(8).lowercased())", isDirectory: true)
        var configuration = ServerConfiguration(dataDirectory: directory)
        configuration.port = port
        configuration.autoconfirm = true
        configuration.bcryptCost = 4
        configuration.rateLimits = .disabled
        // A hook in a test answers from the same loaded machine: give it a minute, not 5 s.
        // (Tests of the timeout itself set their own.)
        configuration.hooks.httpTimeout = 60
        configuration.hooks.functionTimeout = 30
        // Providers in tests are stand-ins on the same machine too.
        configuration.external.requestTimeout = 60
        configure(&configuration)
        return try await start(
            configuration: configuration, clock: clock, mailer: mailer, store: store, smsSender: smsSender, logger: logger, metrics: metrics,
            ownsDataDirectory: ownsDirectory)
    }

    /// Starts a server with `configuration` as it is.
    private static func start(
        configuration: ServerConfiguration, clock: any ServerClock, mailer: (any Mailer)?, store: (any AuthStore)?,
        smsSender: (any SMSSender)?, logger: Logger, metrics: ServerMetrics?, ownsDataDirectory: Bool
    ) async throws -> TestAuthServer {
        let run = try await ServiceRun.start("the test server", logger: logger) { listening in
            try await LatchkeyApplication.build(
                configuration: configuration, clock: clock, mailer: mailer, store: store, smsSender: smsSender, logger: logger, metrics: metrics,
                onServerRunning: listening)
        }
        let hostPart = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let ownURL = "http://\(hostPart):\(run.port)"
        let keys = try await ServerKeys.make(
            dataDirectory: configuration.dataDirectory, configuredSecret: configuration.jwtSecret,
            externalURL: configuration.externalURL ?? ownURL)
        return TestAuthServer(
            baseURL: URL(string: ownURL)!, port: run.port, keys: keys,
            configuration: configuration, clock: clock, ownsDataDirectory: ownsDataDirectory, run: run)
    }

    /// Starts this server again after ``stop()``: the same data directory, port and
    /// configuration, so the same users, sessions and secret. The server started on a
    /// ``restartablePort()``, which no other test is handed.
    ///
    /// The bind alone is retried, and only while the port is taken: the stopped server's socket
    /// can outlive ``stop()``'s wait on a loaded machine (the kernel releases it after the last
    /// connection to it is gone), and no other test can hold this reserved port, so "address
    /// already in use" here means "not yet released". Each retry waits until the port can be
    /// bound; after a minute the error is thrown. The returned server owns the data directory
    /// as this one did; `configure` changes its configuration (not its data directory or port).
    public func restart(
        clock: (any ServerClock)? = nil,
        mailer: (any Mailer)? = nil,
        logger: Logger = Logger(label: "latchkey.testing", factory: { _ in SwiftLogNoOpLogHandler() }),
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestAuthServer {
        var configuration = configuration
        configure(&configuration)
        configuration.dataDirectory = dataDirectory
        configuration.port = port
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            do {
                return try await Self.start(
                    configuration: configuration, clock: clock ?? self.clock, mailer: mailer, store: nil, smsSender: nil, logger: logger,
                    metrics: nil, ownsDataDirectory: ownsDataDirectory)
            } catch  where Self.isAddressInUse(error) && ContinuousClock.now < deadline {
                while !Self.loopbackPortIsFree(port), ContinuousClock.now < deadline {
                    try await Task.sleep(for: .milliseconds(20))
                }
            }
        }
    }

    /// Whether `error` is a bind's "address already in use".
    private static func isAddressInUse(_ error: any Error) -> Bool {
        if let error = error as? IOError { return error.errnoCode == EADDRINUSE }
        return String(describing: error).contains("Address already in use")
    }

    /// Runs `body` against a fresh server, then shuts it down and removes its data, whether
    /// `body` returned or threw.
    public static func with<T: Sendable>(
        clock: any ServerClock = ManualServerClock(),
        logger: Logger = Logger(label: "latchkey.testing", factory: { _ in SwiftLogNoOpLogHandler() }),
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestAuthServer) async throws -> T
    ) async throws -> T {
        try await start(clock: clock, logger: logger, configure: configure).use(body)
    }

    /// Stops accepting connections, lets in-flight requests finish, closes the store; removes
    /// the data directory if the server made it.
    public func shutdown() async throws {
        try await stopServing()
        if ownsDataDirectory { try? FileManager.default.removeItem(at: dataDirectory) }
    }

    /// Stops the server and keeps its data, so that a server started again on the same
    /// ``dataDirectory`` is the same server (same users, sessions and secret).
    ///
    /// Returns once the listening socket is gone too (the server's run can end a moment before
    /// its socket is released on a loaded machine), so a server started next on ``port`` binds.
    public func stop() async throws {
        try await stopServing()
        guard configuration.host == "127.0.0.1" else { return }
        let deadline = ContinuousClock.now + .seconds(60)
        while !Self.loopbackPortIsFree(port), ContinuousClock.now < deadline {
            try? await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Shuts the server down gracefully and waits until its run has ended.
    private func stopServing() async throws {
        try await run.stop()
    }

    /// A client backend for this server.
    public func backend(transport: any HTTPTransport = URLSessionTransport()) -> GoTrueBackend {
        GoTrueBackend(configuration: .init(baseURL: baseURL, apiKey: anonKey), transport: transport)
    }

    // MARK: - Inspecting the server

    /// Sends a request with the `service_role` key (or `bearer`) and returns the status and body.
    public func admin(
        _ method: String, _ path: String, json: [String: any Sendable]? = nil, bearer: String? = nil
    ) async throws -> (status: Int, body: Data) {
        let trimmed = path.hasPrefix("/") ? String(path.dropFirst()) : path
        var request = URLRequest(url: URL(string: baseURL.absoluteString + "/" + trimmed)!)
        request.httpMethod = method
        request.setValue("Bearer \(bearer ?? serviceRoleKey)", forHTTPHeaderField: "Authorization")
        request.setValue(anonKey, forHTTPHeaderField: "apikey")
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
        }
        let (data, response) = try await URLSession.shared.cancellableData(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// The actions of the audit log (`login`, `token_refreshed`…), newest first.
    public func auditActions() async throws -> [String] {
        let (status, data) = try await admin("GET", "admin/audit?per_page=1000")
        guard status == 200 else { throw TestServerError("GET /admin/audit answered \(status)") }
        let entries = (try JSONSerialization.jsonObject(with: data)) as? [[String: Any]] ?? []
        return entries.compactMap { ($0["payload"] as? [String: Any])?["action"] as? String }
    }

    /// The emails in the outbox, oldest first, as the text of their `.eml` files.
    public func outbox() throws -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: outboxDirectory.path)) ?? []
        return try names.filter { $0.hasSuffix(".eml") }.sorted().map {
            try String(contentsOf: outboxDirectory.appendingPathComponent($0), encoding: .utf8)
        }
    }

    /// The emails in the outbox, oldest first, as a mail client reads them (MIME decoded).
    public func outboxMails() throws -> [OutboxMail] {
        try outbox().map(OutboxMail.init(parsing:))
    }

    /// The newest email to `address` whose plain-text part satisfies `condition`.
    func newestMail(to address: String, where condition: (String) -> Bool = { _ in true }) throws -> OutboxMail? {
        try outboxMails().last { $0.to.lowercased() == address.lowercased() && condition($0.text) }
    }

    /// The link token of the newest email of `type` (`signup`, `recovery`, `email_change`) to
    /// `address`.
    public func linkToken(to address: String, type: String) throws -> String {
        guard let mail = try newestMail(to: address, where: { $0.contains("type=\(type)") }),
            let link = Self.verifyLink(in: mail.text),
            let token = URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems?.first(where: { $0.name == "token" })?.value
        else { throw TestServerError("no \(type) email to \(address) in the outbox") }
        return token
    }

    /// The first `/verify` link in `text`.
    public static func verifyLink(in text: String) -> URL? {
        var rest = Substring(text)
        while let start = rest.range(of: "http") {
            let candidate = rest[start.lowerBound...].prefix { !$0.isWhitespace }
            if candidate.contains("/verify?"), let url = URL(string: String(candidate)) { return url }
            rest = rest[start.upperBound...]
        }
        return nil
    }
}

extension TestAuthServer {
    /// The six-digit code in the newest email to `address` (every confirmation, invitation,
    /// recovery, magic-link, email-change and reauthentication email carries one).
    public func emailCode(to address: String) throws -> String {
        guard let mail = try newestMail(to: address),
            let match = mail.text.firstMatch(of: /code[^:\n]*: ([0-9]{6})/)
        else { throw TestServerError("no email with a code to \(address) in the outbox") }
        return String(match.output.1)
    }
}

extension TestAuthServer {
    /// Opens the link of the newest email of `type` to `address` as a browser would, without
    /// following the redirect, and returns where the server redirects to: the app's URL with
    /// the session in the fragment, with `?code=` for a PKCE link, or with the error.
    public func followLink(to address: String, type: String) async throws -> URL {
        let token = try linkToken(to: address, type: type)
        guard let mail = try newestMail(to: address, where: { $0.contains("token=\(token)") }), let link = Self.verifyLink(in: mail.text)
        else { throw TestServerError("no link in the \(type) email to \(address)") }
        let session = URLSession(configuration: .ephemeral, delegate: RedirectRefusal(), delegateQueue: nil)
        defer { session.finishTasksAndInvalidate() }
        let (_, response) = try await session.cancellableData(for: URLRequest(url: link))
        guard let http = response as? HTTPURLResponse, http.statusCode == 303,
            let location = http.value(forHTTPHeaderField: "Location"), let url = URL(string: location)
        else { throw TestServerError("the \(type) link to \(address) did not redirect") }
        return url
    }
}

/// Hands a redirect back instead of following it.
private final class RedirectRefusal: NSObject, URLSessionTaskDelegate, Sendable {
    func urlSession(
        _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
        completionHandler: @escaping @Sendable (URLRequest?) -> Void
    ) {
        completionHandler(nil)
    }
}

/// A test server could not do what a test asked of it.
public struct TestServerError: Error, CustomStringConvertible {
    public let description: String

    public init(_ description: String) {
        self.description = description
    }
}
