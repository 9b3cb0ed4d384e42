import Foundation
import Hummingbird
import LatchkeyServer
import Logging
import ServiceLifecycle

/// A small HTTP server on a free loopback port: the test identity provider, and the tests'
/// stand-ins for outside services the server calls (Pwned Passwords, a CAPTCHA siteverify).
package struct LoopbackHTTPServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    package let baseURL: String
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// Starts serving `router`; returns once it listens.
    package static func start(_ router: Router<BasicRequestContext>, label: String, logger: Logger? = nil) async throws -> LoopbackHTTPServer {
        let logger = logger ?? Logger(label: label)
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
        guard let port = await iterator.next() else {
            try await task.value
            throw ConfigurationError("\(label) stopped before it started listening")
        }
        return LoopbackHTTPServer(baseURL: "http://127.0.0.1:\(port)", group: group, task: task)
    }

    /// Stops serving and waits until it has.
    package func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}
