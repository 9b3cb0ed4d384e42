import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// A Latchkey server running inside the current process: for tests, previews, and apps that
/// embed their own auth server.
///
/// ```swift
/// var configuration = ServerConfiguration(dataDirectory: temporaryDirectory)
/// configuration.port = 0                       // a free port
/// let server = try await EmbeddedServer.start(configuration: configuration)
/// // talk to server.baseURL ...
/// try await server.shutdown()
/// ```
public final class EmbeddedServer: Sendable {
    /// Where the server answers, such as `http://127.0.0.1:53412`.
    public let baseURL: URL
    /// The port the server bound.
    public let port: Int
    /// A `service_role` key for `/admin` endpoints.
    public let serviceRoleKey: String
    /// An `anon` key, as Supabase clients send in their `apikey` header.
    public let anonKey: String
    /// Where the default mailer writes emails.
    public let outboxDirectory: URL

    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    private init(baseURL: URL, port: Int, serviceRoleKey: String, anonKey: String, outboxDirectory: URL, group: ServiceGroup, task: Task<Void, any Error>) {
        self.baseURL = baseURL
        self.port = port
        self.serviceRoleKey = serviceRoleKey
        self.anonKey = anonKey
        self.outboxDirectory = outboxDirectory
        self.group = group
        self.task = task
    }

    /// Starts a server and returns once it accepts connections.
    public static func start(
        configuration: ServerConfiguration,
        clock: any ServerClock = SystemServerClock(),
        mailer: (any Mailer)? = nil,
        store: (any AuthStore)? = nil,
        logger: Logger = Logger(label: "latchkey.embedded")
    ) async throws -> EmbeddedServer {
        let (ports, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = try await LatchkeyApplication.build(
            configuration: configuration, clock: clock, mailer: mailer, store: store, logger: logger,
            onServerRunning: { port in
                portContinuation.yield(port)
                portContinuation.finish()
            })
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { portContinuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            // The server stopped before it listened: surface why.
            try await task.value
            throw ConfigurationError("the server stopped before it started listening")
        }
        let secret = try ServerSecrets.jwtSecret(configured: configuration.jwtSecret, dataDirectory: configuration.dataDirectory)
        let hostPart = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let signer = await TokenSigner(secret: secret, issuer: configuration.resolvedExternalURL() + "/auth/v1")
        return EmbeddedServer(
            baseURL: URL(string: "http://\(hostPart):\(port)")!, port: port,
            serviceRoleKey: try await signer.apiKey(role: "service_role", now: Date()),
            anonKey: try await signer.apiKey(role: "anon", now: Date()),
            outboxDirectory: configuration.dataDirectory.appendingPathComponent("outbox"), group: group, task: task)
    }

    /// Stops accepting connections, lets in-flight requests finish, closes the store.
    public func shutdown() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}
