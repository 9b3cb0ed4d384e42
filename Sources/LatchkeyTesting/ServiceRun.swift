import LatchkeyServer
import Logging
import ServiceLifecycle

/// A service running in a service group of its own, without signal handling, until
/// ``stop()``: how the test server and the loopback servers run.
struct ServiceRun: Sendable {
    /// The port the service listens on.
    let port: Int
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    /// Runs the service `make` builds, handing it the function to call with its port once it
    /// listens; returns then. A service that stops before it listens throws its error, or
    /// "<name> stopped before it started listening".
    static func start<S: Service>(
        _ name: String, logger: Logger, _ make: (_ listening: @escaping @Sendable (Int) -> Void) async throws -> S
    ) async throws -> ServiceRun {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let service = try await make { port in
            continuation.yield(port)
            continuation.finish()
        }
        let group = ServiceGroup(configuration: .init(services: [service], gracefulShutdownSignals: [], logger: logger))
        let task = Task {
            defer { continuation.finish() }
            try await group.run()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next() else {
            try await task.value
            throw ConfigurationError("\(name) stopped before it started listening")
        }
        return ServiceRun(port: port, group: group, task: task)
    }

    /// Shuts the service down gracefully and waits until its run has ended.
    func stop() async throws {
        await group.triggerGracefulShutdown()
        try await task.value
    }
}
