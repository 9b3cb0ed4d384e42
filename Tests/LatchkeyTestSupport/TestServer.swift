import Foundation
import Latchkey
import LatchkeyServer
import LatchkeyTesting
import Logging

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real Latchkey server, in process, on a random port with a temporary database
/// (`TestAuthServer` of LatchkeyTesting), with the admin calls the client tests make.
package final class TestServer: Sendable {
    package let server: TestAuthServer
    package let serverClock: ManualServerClock

    package static func start(
        autoconfirm: Bool = true, rateLimits: RateLimitConfiguration = .disabled, accessTokenTTL: TimeInterval = 3600,
        smsSender: (any SMSSender)? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        let clock = ManualServerClock(Date())
        let server = try await TestAuthServer.start(clock: clock, store: nil, smsSender: smsSender) { configuration in
            configuration.autoconfirm = autoconfirm
            configuration.rateLimits = rateLimits
            configuration.accessTokenTTL = accessTokenTTL
            configure(&configuration)
        }
        return TestServer(server: server, serverClock: clock)
    }

    private init(server: TestAuthServer, serverClock: ManualServerClock) {
        self.server = server
        self.serverClock = serverClock
    }

    package func stop() async {
        try? await server.shutdown()
    }

    package var baseURL: URL { server.baseURL }

    /// A GoTrue backend for this server over `transport`.
    package func backend(transport: any HTTPTransport = URLSessionTransport()) -> GoTrueBackend {
        // A loaded machine can take longer than a phone would wait (15 s): give the server 2 minutes.
        GoTrueBackend(configuration: .init(baseURL: server.baseURL, apiKey: server.anonKey, requestTimeout: 120), transport: transport)
    }

    // MARK: Admin API (service role)

    package func admin(_ method: String, _ path: String, body: [String: any Sendable]? = nil) async throws -> (Int, Data) {
        let (status, data) = try await server.admin(method, path, json: body)
        return (status, data)
    }

    /// How many refreshes the server granted (`token_refreshed` audit entries).
    package func refreshCount() async throws -> Int {
        try await server.auditActions().filter { $0 == "token_refreshed" }.count
    }

    package func logoutEverywhere(userID: String) async throws {
        let (status, _) = try await admin("POST", "admin/users/\(userID)/logout")
        precondition(status == 204, "admin logout failed with \(status)")
    }

    package func deleteUser(_ userID: String) async throws {
        let (status, _) = try await admin("DELETE", "admin/users/\(userID)")
        precondition((200..<300).contains(status), "delete failed with \(status)")
    }

    package func ban(_ userID: String) async throws {
        let (status, _) = try await admin("PUT", "admin/users/\(userID)", body: ["ban_duration": "24h"])
        precondition(status == 200, "ban failed with \(status)")
    }
}

/// Runs `body` against a fresh server and always shuts it down afterwards; with `smsSender` the
/// server's text messages go to it.
package func withTestServer<T: Sendable>(
    autoconfirm: Bool = true, rateLimits: RateLimitConfiguration = .disabled, smsSender: (any SMSSender)? = nil,
    configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (TestServer) async throws -> T
) async throws -> T {
    let server = try await TestServer.start(autoconfirm: autoconfirm, rateLimits: rateLimits, smsSender: smsSender, configure: configure)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
