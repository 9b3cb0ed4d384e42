import Foundation
import Testing

@testable import LatchkeyServer

/// Connections held open by the dozen: the server keeps answering. A load test — it holds 75
/// sockets for about a minute — so it runs after the main suite, one test at a time (every
/// suite whose name ends in `LoadTests` does; see Documentation/Contributing.md).
@Suite("HTTP connections under load", .serialized)
struct ConnectionLoadTests {
    @Test("held-open connections cannot starve the server: /health answers with many idle sockets, beyond the limit too")
    func connectionLimit() async throws {
        try await TestServer.with(configure: {
            $0.idleTimeout = 15
            $0.maximumConnections = 20
        }) { server in
            var idle: [RawConnection] = []
            for _ in 0..<15 { idle.append(try await RawConnection.open(port: server.server.port)) }
            #expect(try await server.request(.GET, "/health").status == 200)
            // Under the limit /health did not wait for an idle socket to time out: they are all
            // still open (whatever the machine's speed, this is what "at once" means here).
            let stillOpen = idle.filter { $0.isOpen }.count
            #expect(stillOpen == idle.count, "under the limit: answered before any idle socket timed out (\(stillOpen) of \(idle.count) open)")

            // 60 more idle sockets, three times the limit: the excess waits in the backlog, the
            // idle ones are closed after the timeout, and /health gets its turn.
            for _ in 0..<60 { idle.append(try await RawConnection.open(port: server.server.port)) }
            #expect(try await server.request(.GET, "/health").status == 200)
            var closed = 0
            for connection in idle where try await connection.closedByServer(within: HTTPHardeningTests.closeDeadline) { closed += 1 }
            #expect(closed == idle.count, "every idle socket was closed by the server")
        }
    }
}
