import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// A small HTTP server on a free loopback port, for the stand-ins of outside services (Pwned
/// Passwords, a CAPTCHA provider's siteverify) that the server under test calls.
struct LocalHTTPServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    let baseURL: String
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// Starts serving `router`; returns once it listens.
    static func start(_ router: Router<BasicRequestContext>, label: String) async throws -> LocalHTTPServer {
        let logger = Logger(label: label)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            }, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestFailure("\(label) stopped before it listened") }
        return LocalHTTPServer(baseURL: "http://127.0.0.1:\(port)", group: group, task: task)
    }

    func stop() async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
    }
}
