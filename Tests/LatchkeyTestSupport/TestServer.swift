import Foundation
import Latchkey
import LatchkeyServer
import Logging

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real Latchkey server, in process, on a random port with a temporary database.
package final class TestServer: Sendable {
    package let server: EmbeddedServer
    package let directory: URL
    package let serverClock: ManualServerClock

    package static func start(autoconfirm: Bool = true, rateLimits: RateLimitConfiguration = .disabled, accessTokenTTL: TimeInterval = 3600) async throws -> TestServer {
        let directory = temporaryDirectory("latchkey-server")
        var configuration = ServerConfiguration(dataDirectory: directory)
        configuration.port = 0
        configuration.autoconfirm = autoconfirm
        configuration.rateLimits = rateLimits
        configuration.accessTokenTTL = accessTokenTTL
        configuration.bcryptCost = 4
        let clock = ManualServerClock(Date())
        let server = try await EmbeddedServer.start(
            configuration: configuration, clock: clock,
            logger: Logger(label: "latchkey.tests.server", factory: { _ in SwiftLogNoOpLogHandler() }))
        return TestServer(server: server, directory: directory, serverClock: clock)
    }

    private init(server: EmbeddedServer, directory: URL, serverClock: ManualServerClock) {
        self.server = server
        self.directory = directory
        self.serverClock = serverClock
    }

    package func stop() async {
        try? await server.shutdown()
        removeDirectory(directory)
    }

    package var baseURL: URL { server.baseURL }

    /// A GoTrue backend for this server over `transport`.
    package func backend(transport: any HTTPTransport = URLSessionTransport()) -> GoTrueBackend {
        GoTrueBackend(configuration: .init(baseURL: server.baseURL, apiKey: server.anonKey), transport: transport)
    }

    // MARK: Admin API (service role)

    package func admin(_ method: String, _ path: String, body: [String: Any]? = nil) async throws -> (Int, Data) {
        var request = URLRequest(url: URL(string: server.baseURL.absoluteString + "/" + path)!)
        request.httpMethod = method
        request.setValue("Bearer \(server.serviceRoleKey)", forHTTPHeaderField: "Authorization")
        request.setValue(server.anonKey, forHTTPHeaderField: "apikey")
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: body)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }

    /// How many refreshes the server granted (`token_refreshed` audit entries).
    package func refreshCount() async throws -> Int {
        let (status, data) = try await admin("GET", "admin/audit?per_page=1000")
        precondition(status == 200, "audit failed with \(status)")
        struct Entry: Decodable {
            struct Payload: Decodable { var action: String }
            var payload: Payload
        }
        return try JSONDecoder().decode([Entry].self, from: data).filter { $0.payload.action == "token_refreshed" }.count
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

/// Runs `body` against a fresh server and always shuts it down afterwards.
package func withTestServer<T: Sendable>(
    autoconfirm: Bool = true, rateLimits: RateLimitConfiguration = .disabled,
    _ body: (TestServer) async throws -> T
) async throws -> T {
    let server = try await TestServer.start(autoconfirm: autoconfirm, rateLimits: rateLimits)
    do {
        let result = try await body(server)
        await server.stop()
        return result
    } catch {
        await server.stop()
        throw error
    }
}
