import Foundation
import Hummingbird
import HummingbirdCore
import Logging
import NIOCore
import ServiceLifecycle

/// Builds the Latchkey server: opens the store, loads the secret, wires the routes.
///
/// `latchkey serve` runs the result with `runService()` (graceful shutdown on SIGTERM and
/// SIGINT); an app runs it the same way, or in its own `ServiceGroup`; `TestAuthServer` (in
/// LatchkeyTesting) runs it inside a test.
public enum LatchkeyApplication {
    /// The application for `configuration`, ready to run, on the database
    /// ``ServerConfiguration/databaseURL`` names (SQLite in the data directory by default).
    ///
    /// - Parameters:
    ///   - clock: the source of "now" (in tests, `ManualServerClock` from LatchkeyTesting).
    ///   - mailer: delivers emails; `nil` writes them to `<dataDirectory>/outbox`.
    ///   - metrics: where request, sign-in, refresh, rate-limit and mail metrics go; `nil` keeps
    ///     them in a Prometheus registry of this server's own, served by `GET /metrics` when
    ///     ``ServerConfiguration/metricsToken`` is set. With ``ServerConfiguration/metricsEnabled``
    ///     off nothing is recorded, here or there.
    ///   - onServerRunning: called with the bound port once the server accepts connections.
    public static func build(
        configuration: ServerConfiguration,
        clock: any ServerClock = SystemServerClock(),
        mailer: (any Mailer)? = nil,
        logger: Logger = Logger(label: "latchkey"),
        metrics: ServerMetrics? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> some ApplicationProtocol {
        try await build(
            configuration: configuration, clock: clock, mailer: mailer, store: nil, logger: logger, metrics: metrics,
            onServerRunning: onServerRunning)
    }

    /// The application over `store` (`nil`: the store the configuration names), for the
    /// package's own tests and tools.
    package static func build(
        configuration: ServerConfiguration,
        clock: any ServerClock = SystemServerClock(),
        mailer: (any Mailer)? = nil,
        store: (any AuthStore)?,
        smsSender: (any SMSSender)? = nil,
        logger: Logger = Logger(label: "latchkey"),
        metrics: ServerMetrics? = nil,
        onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) async throws -> some ApplicationProtocol {
        try configuration.validate()
        for warning in configuration.warnings() { logger.warning("\(warning)") }
        // Templates first: a mistake in one stops the start before anything is opened.
        let mailTemplates = try MailTemplates.load(overrides: configuration.mailTemplatesDirectory)
        try ServerSecrets.prepareDataDirectory(configuration.dataDirectory)
        let secret = try ServerSecrets.jwtSecret(configured: configuration.jwtSecret, dataDirectory: configuration.dataDirectory)
        let store: any AuthStore = if let store { store } else { try await openStore(configuration, logger: logger) }
        let hasher = PasswordHasher(
            cost: configuration.bcryptCost,
            threads: configuration.passwordHashingThreads ?? ProcessInfo.processInfo.activeProcessorCount)
        // With port 0 and no external URL the port is known once the server binds: the origin
        // is updated then (onServerRunning), before anyone can know where to connect.
        let origin = ServerOrigin(configuration.resolvedExternalURL())
        let learnsPort = configuration.port == 0 && configuration.externalURL == nil
        let metrics: ServerMetrics? = configuration.metricsEnabled ? metrics ?? .prometheus() : nil
        let baseMailer = try mailer ?? defaultMailer(configuration, logger: logger)
        let dependencies = FeatureDependencies(
            configuration: configuration, store: store, clock: clock, hasher: hasher,
            signer: await TokenSigner(secret: secret, keys: configuration.jwtKeys, origin: origin),
            tokens: OpaqueTokens(jwtSecret: secret),
            mailer: metrics.map { MeteredMailer(base: baseMailer, metrics: $0) } ?? baseMailer,
            rateLimitCounter: rateLimitCounter(for: store, jwtSecret: secret), logger: logger,
            origin: origin, mailTemplates: mailTemplates, pageTemplates: try PageTemplates.load(overrides: configuration.pageTemplatesDirectory),
            metrics: metrics, smsSender: smsSender)

        let router = makeRouter(dependencies, proxies: try TrustedProxies(parsing: configuration.trustedProxies))
        let connectionLimit = configuration.resolvedMaximumConnections()
        let idleTimeout = TimeAmount(seconds: configuration.idleTimeout)

        return Application(
            responder: CORSResponder(
                inner: GatewayPrefixResponder(inner: router.buildResponder()),
                policy: CORSPolicy(allowedOrigins: configuration.corsAllowedOrigins, extraAllowedHeaders: configuration.corsAllowedHeaders)),
            // Idle connections close after the idle timeout, a request must arrive whole within it
            // (HTTPGuardHandler), and beyond the connection limit new connections wait in the
            // listen backlog: held-open connections cannot exhaust the process's descriptors.
            server: .http1(
                configuration: .init(additionalChannelHandlers: [HTTPGuardHandler(requestTimeout: idleTimeout)], idleTimeout: idleTimeout)),
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(connectionLimit, logger: logger)),
            // A store that runs in the background (PostgreSQL's connection pool) starts first and
            // stops last: graceful shutdown goes in reverse order, after the server, the cleanup
            // task and the closer.
            services: [store as? any Service].compactMap { $0 } + [ResourceCloser(store: store, hasher: hasher, logger: logger)]
                + cleanupServices(configuration, store: store, clock: clock, logger: logger),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? configuration.port
                if learnsPort { origin.bound(host: configuration.host, port: port) }
                logger.notice("latchkey listening", metadata: ["address": "\(configuration.host):\(port)"])
                await onServerRunning(port)
            },
            logger: logger)
    }

    /// Where rate limits are counted, chosen with the store: in the database on PostgreSQL, so
    /// that every instance on it shares one count per key; in this process otherwise (SQLite
    /// serves one instance).
    static func rateLimitCounter(for store: any AuthStore, jwtSecret: String) -> any RateLimitCounter {
        if let postgres = store as? PostgresAuthStore { return PostgresRateLimitCounter(store: postgres, jwtSecret: jwtSecret) }
        return InMemoryRateLimitCounter()
    }

    /// The cleanup task, unless ``ServerConfiguration/cleanupInterval`` is 0.
    static func cleanupServices(_ configuration: ServerConfiguration, store: any AuthStore, clock: any ServerClock, logger: Logger) -> [any Service] {
        guard configuration.cleanupInterval > 0 else { return [] }
        let cleanup = StorageCleanup(
            store: store, clock: clock,
            settings: StorageCleanup.Settings(
                refreshTokenRetention: configuration.refreshTokenRetention, auditRetention: configuration.auditRetention,
                sessionInactivityTimeout: configuration.sessionInactivityTimeout,
                oneTimeTokenLifetime: max(configuration.confirmationTokenTTL, configuration.recoveryTokenTTL, configuration.emailCodeTTL),
                mfaFactorExpiry: configuration.mfa.factorExpiry, mfaChallengeExpiry: configuration.mfa.challengeExpiry))
        return [StorageCleanupService(cleanup: cleanup, interval: configuration.cleanupInterval, logger: logger)]
    }

    /// The mailer the configuration names: SMTP when ``ServerConfiguration/smtpURL`` is set,
    /// the outbox folder otherwise. Logs where mail goes (never a credential).
    static func defaultMailer(_ configuration: ServerConfiguration, logger: Logger) throws -> any Mailer {
        let sender = try configuration.mailSender()
        if let smtp = try configuration.smtpSettings() {
            logger.notice("mail goes over SMTP", metadata: ["smtp": "\(smtp)", "from": "\(sender.address)"])
            return SMTPMailer(settings: smtp, sender: sender, logger: logger)
        }
        let outbox = configuration.dataDirectory.appendingPathComponent("outbox")
        logger.notice("mail goes to the outbox folder (no SMTP URL set)", metadata: ["outbox": "\(outbox.path)"])
        return FileOutboxMailer(directory: outbox, sender: sender.description, logger: logger)
    }

    /// Every feature of the server, each registering its own routes and their guards.
    ///
    /// A new feature is a folder and a line here.
    static let features: [any AuthFeature.Type] = [
        ServiceRoutes.self,
        WellKnownRoutes.self,
        OperationsRoutes.self,
        SSORoutes.self,
        SCIMRoutes.self,
        OAuthServerRoutes.self,
        SessionRoutes.self,
        UserRoutes.self,
        IdentityRoutes.self,
        BrowserSignInRoutes.self,
        CustomProviderRoutes.self,
        FactorRoutes.self,
        PasskeyRoutes.self,
        EmailLinkRoutes.self,
        AdminRoutes.self,
        HostedPageRoutes.self,
    ]

    /// Every route of ``features``, behind the error and logging middleware.
    static func makeRouter(_ dependencies: FeatureDependencies, proxies: TrustedProxies = TrustedProxies([])) -> Router<AuthRequestContext> {
        let router = Router(context: AuthRequestContext.self)
        // Outermost first: the client address, then the access log (which sees error answers),
        // then GoTrue's error shape.
        router.add(middleware: ClientAddressMiddleware(proxies: proxies))
        router.add(middleware: RequestLogMiddleware(metrics: dependencies.metrics))
        router.add(middleware: GoTrueErrorMiddleware())
        if let captcha = dependencies.captcha {
            router.add(middleware: CaptchaMiddleware(verifier: captcha, authentication: dependencies.authentication))
        }
        for feature in features { feature.init(dependencies).register(on: router) }
        // Last, so it wraps only the not-found responder: a served path with another method is 405.
        router.add(middleware: MethodNotAllowedMiddleware(routes: describe(router.routes)))
        return router
    }

    /// The registered routes as (method, OpenAPI-style path), e.g. `("GET", "/admin/users/{id}")`.
    static func routeDescriptions(_ dependencies: FeatureDependencies) -> [(method: String, path: String)] {
        describe(makeRouter(dependencies).routes)
    }

    /// Routes as (method, OpenAPI-style path).
    static func describe(_ routes: [Router<AuthRequestContext>.RouteDescription]) -> [(method: String, path: String)] {
        routes.map { route in
            let path = route.path.description.split(separator: "/", omittingEmptySubsequences: false).map { part in
                part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
            }.joined(separator: "/")
            return (route.method.rawValue, path.hasPrefix("/") ? path : "/" + path)
        }
    }

    /// Builds and runs the server until SIGTERM or SIGINT, then shuts down gracefully:
    /// in-flight requests finish, the store is closed.
    public static func run(configuration: ServerConfiguration, logger: Logger = Logger(label: "latchkey")) async throws {
        let app = try await build(configuration: configuration, logger: logger)
        try await app.runService()
    }

    /// Opens the store a database URL names: `sqlite://PATH` (the default, in the data directory)
    /// or `postgres://…` / `postgresql://…` (migrated, pooled; see ``PostgresAuthStore``).
    package static func openStore(_ configuration: ServerConfiguration, logger: Logger) async throws -> any AuthStore {
        switch try configuration.databaseLocation() {
        case .sqlite(let path):
            let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let store = try SQLiteAuthStore(path: path)
            ServerSecrets.restrictDatabaseFiles(path)
            return store
        case .postgres(let url):
            let store = try await PostgresAuthStore.connect(
                url: url, poolSize: configuration.databasePoolSize, timeout: configuration.databaseTimeout, logger: logger)
            logger.notice("using PostgreSQL", metadata: ["database": "\(store.redactedURL)", "pool_size": "\(configuration.databasePoolSize)"])
            return store
        }
    }
}

/// Closes the store and the hashing threads once the HTTP server has stopped.
struct ResourceCloser: Service {
    let store: any AuthStore
    let hasher: PasswordHasher
    let logger: Logger

    func run() async throws {
        // Waits until shutdown begins; the server (later in the group) has stopped by the time
        // this service is asked to finish, so in-flight requests complete first.
        try? await gracefulShutdown()
        do {
            try await store.close()
            try await hasher.shutdown()
        } catch {
            logger.error("error while closing resources", metadata: ["error.type": "\(type(of: error))"])
        }
    }
}
