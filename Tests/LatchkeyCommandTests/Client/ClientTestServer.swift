import Foundation
import LatchkeyServer
import LatchkeyTesting
import Logging

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The real Latchkey server in the test process, for the `latchkey` client commands (run as
/// separate processes) to talk to. A fixed port and data directory let a test stop it and start
/// it again as the same server.
final class ClientTestServer: Sendable {
    let server: TestAuthServer

    var dataDirectory: URL { server.dataDirectory }
    var configuration: ServerConfiguration { server.configuration }

    /// Starts a server: a free port unless `port` is given, a new data directory unless
    /// `dataDirectory` is given, auto-confirmed sign-ups and no rate limits unless told. The
    /// server keeps real time, as the commands it serves do.
    static func start(
        port: Int = 0, dataDirectory: URL? = nil, accessTokenTTL: TimeInterval = 3600,
        autoconfirm: Bool = true, rateLimits: RateLimitConfiguration = .disabled, smsSender: (any SMSSender)? = nil,
        configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> ClientTestServer {
        var configuration = ServerConfiguration(dataDirectory: dataDirectory ?? TemporaryDirectory.make("latchkey-cli-server"))
        configuration.port = port
        configuration.autoconfirm = autoconfirm
        configuration.accessTokenTTL = accessTokenTTL
        configuration.rateLimits = rateLimits
        configuration.bcryptCost = 4
        configure(&configuration)
        return try await start(configuration, smsSender: smsSender)
    }

    /// Starts a server with `configuration`; with `smsSender` its text messages go there.
    static func start(_ configuration: ServerConfiguration, smsSender: (any SMSSender)? = nil) async throws -> ClientTestServer {
        let server = try await TestAuthServer.start(
            dataDirectory: configuration.dataDirectory, port: configuration.port, clock: SystemServerClock(), store: nil, smsSender: smsSender,
            configure: { $0 = configuration })
        return ClientTestServer(server: server)
    }

    private init(server: TestAuthServer) {
        self.server = server
    }

    /// The same server again (same port, same database, same secret), after ``stop()``;
    /// `accessTokenTTL` changes the lifetime of the tokens it issues from now on.
    func restarted(accessTokenTTL: TimeInterval? = nil) async throws -> ClientTestServer {
        let server = try await server.restart(clock: SystemServerClock()) { configuration in
            if let accessTokenTTL { configuration.accessTokenTTL = accessTokenTTL }
        }
        return ClientTestServer(server: server)
    }

    /// Stops this server and starts it again (same port, database and secret) issuing access
    /// tokens that live `accessTokenTTL` seconds. Start it on `CommandRunner.freePort()` first.
    func restartedAfterStop(accessTokenTTL: TimeInterval) async throws -> ClientTestServer {
        await stop()
        return try await restarted(accessTokenTTL: accessTokenTTL)
    }

    /// Stops the server, keeping its data.
    func stop() async {
        try? await server.stop()
    }

    /// Stops the server and deletes its data.
    func discard() async {
        await stop()
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// The URL to pass to `--server`.
    var url: String { server.baseURL.absoluteString }

    // MARK: - Admin API (service role)

    func request(_ method: String, _ path: String, bearer: String? = nil, body: [String: any Sendable]? = nil) async throws -> (Int, Data) {
        let (status, data) = try await server.admin(method, path, json: body, bearer: bearer)
        return (status, data)
    }

    /// Creates a confirmed account.
    func createUser(email: String, password: String) async throws {
        let (status, _) = try await request("POST", "admin/users", body: ["email": email, "password": password, "email_confirm": true])
        precondition(status == 200 || status == 201, "admin create user failed with \(status)")
    }

    /// The id of the account with `email`.
    func userID(email: String) async throws -> String {
        let (_, data) = try await request("GET", "admin/users?per_page=1000")
        struct Page: Decodable {
            struct User: Decodable {
                var id: String
                var email: String?
            }
            var users: [User]
        }
        let page = try JSONDecoder().decode(Page.self, from: data)
        guard let user = page.users.first(where: { $0.email == email }) else { throw CancellationError() }
        return user.id
    }

    /// Ends every session of the user, as an admin revoking access would.
    func revokeSessions(email: String) async throws {
        let (status, _) = try await request("POST", "admin/users/\(try await userID(email: email))/logout")
        precondition(status == 204, "admin logout failed with \(status)")
    }

    /// Deletes the account.
    func deleteUser(email: String) async throws {
        let (status, _) = try await request("DELETE", "admin/users/\(try await userID(email: email))")
        precondition(status == 200 || status == 204, "admin delete failed with \(status)")
    }

    /// The audit log's actions, newest first.
    func auditActions() async throws -> [String] { try await server.auditActions() }

    /// How many refreshes reached the server and were granted.
    func refreshCount() async throws -> Int {
        try await auditActions().filter { $0 == "token_refreshed" }.count
    }

    // MARK: - Mail (the outbox folder)

    /// How many emails to `address` the outbox holds.
    func mailCount(to address: String) throws -> Int {
        try server.outbox().filter { $0.contains("To: \(address)") }.count
    }

    /// The code of the newest email to `address`, once there are more than `count` of them.
    func newEmailCode(to address: String, after count: Int, upTo seconds: Double = 90) async throws -> String {
        let deadline = Date().addingTimeInterval(seconds)
        while try mailCount(to: address) <= count {
            guard Date() < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(50))
        }
        return try server.emailCode(to: address)
    }

    /// The status of `GET /user` with `accessToken`.
    func userStatus(accessToken: String) async throws -> Int {
        try await request("GET", "user", bearer: accessToken).0
    }
}

/// Temporary directories for tests.
enum TemporaryDirectory {
    static func make(_ prefix: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    }
}
