import Foundation
import Hummingbird
import LatchkeyServer
import Logging

/// A small HTTP server on a free loopback port: the test identity provider, and the tests'
/// stand-ins for outside services the server calls (Pwned Passwords, a CAPTCHA siteverify).
package struct LoopbackHTTPServer: Sendable {
    /// `http://127.0.0.1:<port>`.
    package let baseURL: String
    private let run: ServiceRun

    /// Starts serving `router`; returns once it listens.
    package static func start(_ router: Router<BasicRequestContext>, label: String, logger: Logger? = nil) async throws -> LoopbackHTTPServer {
        let logger = logger ?? Logger(label: label)
        let run = try await ServiceRun.start(label, logger: logger) { listening in
            Application(
                router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)),
                onServerRunning: { channel in listening(channel.localAddress?.port ?? 0) }, logger: logger)
        }
        return LoopbackHTTPServer(baseURL: "http://127.0.0.1:\(run.port)", run: run)
    }

    /// Stops serving and waits until it has.
    package func stop() async throws {
        try await run.stop()
    }
}
