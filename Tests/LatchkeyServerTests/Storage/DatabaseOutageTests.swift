import Foundation
import LatchkeyTestSupport
import Testing

@testable import LatchkeyServer

/// A PostgreSQL outage: requests get 503 JSON errors, never a hang or a crash, and the instance
/// recovers by itself when the database returns.
///
/// The outage is played by a ``TCPProxy`` between the server and the shared test database:
/// cutting it drops every pooled connection and refuses new ones, exactly what a stopped or
/// unreachable database looks like from the server, without stopping the database that other
/// tests use in parallel.
@Suite("PostgreSQL outage and recovery", .enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
struct DatabaseOutageTests {
    @Test("an outage answers 503 JSON promptly; the same instance serves again once the database is back")
    func outageAndRecovery() async throws {
        try await PostgresTestDatabase.with { url in
            let target = try PostgresDatabaseURL(url)
            let proxy = try await TCPProxy.start(upstreamHost: target.host, upstreamPort: target.port)
            defer { Task { await proxy.stop() } }
            var viaProxy = URLComponents(string: url)!
            viaProxy.port = proxy.port
            try await TestServer.with(configure: {
                $0.databaseURL = viaProxy.string
                $0.databasePoolSize = 2
                // Long enough for the sign-up below on a loaded machine; each 503 below is still the
                // server's own answer (after at most 10 s), well within the client's 120 s.
                $0.databaseTimeout = 10
            }) { server in
                let session = try await server.signUp("outage@example.com")
                #expect(try await server.request(.GET, "/user", bearer: session.accessToken).status == 200)

                // Readiness allows the store 3 s, which a loaded machine can miss: wait for it.
                #expect(await eventually(timeout: 120) { (try? await server.request(.GET, "/ready").status) == 200 })
                await proxy.cut()
                // Readiness fails while the database is gone; liveness does not.
                try await server.request(.GET, "/ready").expectError(503, "service_unavailable")
                #expect(try await server.request(.GET, "/health").status == 200)
                // Each answer is the server's own 503 (bounded by --database-timeout), not the
                // client giving up: a request that hung would end in the client's timeout error.
                for request in [
                    { try await server.request(.GET, "/user", bearer: session.accessToken) },
                    { try await server.refresh(session.refreshToken) },
                    { try await server.signIn("outage@example.com") },
                ] {
                    let response = try await request()
                    response.expectError(503, "service_unavailable")
                    #expect(response.json["msg"] is String, "GoTrue's JSON error shape")
                    #expect(!response.text.contains(url), "no connection details leak to clients")
                }

                try await proxy.restore()
                // Recovery is waited on, not timed: until the pool reconnects every answer is a 503.
                var recovered: TestResponse?
                let deadline = ContinuousClock.now + .seconds(120)
                while ContinuousClock.now < deadline {
                    let response = try await server.request(.GET, "/user", bearer: session.accessToken)
                    if response.status == 200 {
                        recovered = response
                        break
                    }
                    #expect(response.status == 503)
                    try await Task.sleep(for: .milliseconds(250))
                }
                #expect(recovered != nil, "the pool reconnected by itself")
                // Every pooled connection reconnects in its own time: wait for readiness.
                #expect(await eventually(timeout: 120) { (try? await server.request(.GET, "/ready").status) == 200 })
                #expect(try await server.refresh(session.refreshToken).status == 200, "and the session survived the outage")
            }
        }
    }

    @Test("a server whose database cannot be reached at start fails to start with a clear error")
    func unreachableAtStart() async throws {
        let error = await #expect(throws: StoreError.self) {
            try await TestServer.with(configure: { $0.databaseURL = "postgres://latchkey@127.0.0.1:1/nowhere" }) { _ in }
        }
        guard case .unavailable(let reason) = error else { return }
        #expect(reason.contains("127.0.0.1:1/nowhere"))
    }
}
