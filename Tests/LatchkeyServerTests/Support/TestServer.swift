import AsyncHTTPClient
import Foundation
import LatchkeyTesting
import Logging
import NIOCore
import NIOHTTP1

@testable import LatchkeyServer

/// The real Latchkey server in this process (``TestAuthServer``) and an HTTP client to talk to
/// it. No part of the server is mocked. Rate limits are on, as a deployed server has them.
struct TestServer: Sendable {
    let server: TestAuthServer
    let client: HTTPClient
    let clock: ManualServerClock

    var directory: URL { server.dataDirectory }
    var configuration: ServerConfiguration { server.configuration }

    /// Runs `body` against a fresh server, then shuts everything down and removes the data
    /// (unless `directory` was given).
    static func with<T: Sendable>(
        directory: URL? = nil,
        clock: ManualServerClock = ManualServerClock(),
        store: (any AuthStore)? = nil,
        mailer: (any Mailer)? = nil,
        smsSender: (any SMSSender)? = nil,
        logger: Logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }),
        metrics: ServerMetrics? = nil,
        configure: (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestServer) async throws -> T
    ) async throws -> T {
        let server = try await TestAuthServer.start(
            dataDirectory: directory, clock: clock, mailer: mailer, store: store, smsSender: smsSender, logger: logger, metrics: metrics
        ) { configuration in
            configuration.rateLimits = RateLimitConfiguration()
            // No background cleanup unless a test turns it on: tests move the clock by days.
            configuration.cleanupInterval = 0
            configure(&configuration)
        }
        var clientConfiguration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        clientConfiguration.connectionPool = .init(idleTimeout: .seconds(30), concurrentHTTP1ConnectionsPerHostSoftLimit: 64)
        let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: clientConfiguration)
        let test = TestServer(server: server, client: client, clock: clock)
        do {
            let result = try await body(test)
            try await client.shutdown()
            try await server.shutdown()
            return result
        } catch {
            try? await client.shutdown()
            try? await server.shutdown()
            throw error
        }
    }

    /// Sends a request; `json` is serialised as the body, `form` form-encoded, `rawBody` is sent
    /// as is (as JSON).
    func request(
        _ method: HTTPMethod, _ path: String, json: [String: any Sendable]? = nil, form: [String: String]? = nil, rawBody: String? = nil,
        bearer: String? = nil, headers: [(String, String)] = []
    ) async throws -> TestResponse {
        var request = HTTPClientRequest(url: server.baseURL.absoluteString + path)
        request.method = method
        if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let json {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: json)))
        } else if let form {
            var allowed = CharacterSet.alphanumerics
            allowed.insert(charactersIn: "-._~")
            let text = form.sorted { $0.key < $1.key }
                .map { "\($0.key)=\($0.value.addingPercentEncoding(withAllowedCharacters: allowed) ?? "")" }.joined(separator: "&")
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: text))
        } else if let rawBody {
            request.headers.add(name: "Content-Type", value: "application/json")
            request.body = .bytes(ByteBuffer(string: rawBody))
        }
        let response = try await client.execute(request, timeout: .seconds(120))
        let body = try await response.body.collect(upTo: 16 << 20)
        return TestResponse(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
    }

    // MARK: Flows used by many tests

    /// Signs up (autoconfirm) and returns the session.
    @discardableResult
    func signUp(_ email: String, _ password: String = "correct horse battery", data: [String: any Sendable]? = nil) async throws -> TestSession {
        var body: [String: any Sendable] = ["email": email, "password": password]
        if let data { body["data"] = data }
        let response = try await request(.POST, "/signup", json: body)
        guard response.status == 200, let session = TestSession(response) else {
            throw TestFailure("sign-up failed: \(response.status) \(response.text)")
        }
        return session
    }

    func signIn(_ email: String, _ password: String = "correct horse battery") async throws -> TestResponse {
        try await request(.POST, "/token?grant_type=password", json: ["email": email, "password": password])
    }

    func refresh(_ token: String) async throws -> TestResponse {
        try await request(.POST, "/token?grant_type=refresh_token", json: ["refresh_token": token])
    }

    /// The audit actions recorded so far, newest first.
    func auditActions() async throws -> [String] { try await server.auditActions() }

    /// The emails in the outbox, oldest first.
    func outbox() throws -> [String] { try server.outbox() }

    /// The link token in the newest email to `address`.
    func linkToken(to address: String, type: String) throws -> String { try server.linkToken(to: address, type: type) }

    /// The six-digit code in the newest email to `address`.
    func emailCode(to address: String) throws -> String { try server.emailCode(to: address) }

    /// How many emails went to `address`.
    func mailCount(to address: String) throws -> Int { try outbox().filter { $0.contains("To: \(address)") }.count }
}

/// A response with helpers to read GoTrue JSON.
struct TestResponse: Sendable {
    let status: Int
    let headers: HTTPHeaders
    let body: Data

    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any] { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:] }
    var jsonArray: [[String: Any]]? { (try? JSONSerialization.jsonObject(with: body)) as? [[String: Any]] }
    var errorCode: String? { json["error_code"] as? String ?? headers.first(name: "x-sb-error-code") }
    subscript(key: String) -> Any? { json[key] }
}

/// The parts of a session tests use.
struct TestSession: Sendable, Equatable {
    let accessToken: String
    let refreshToken: String
    let userID: String
    let email: String

    init?(_ response: TestResponse) {
        let json = response.json
        guard let access = json["access_token"] as? String, let refresh = json["refresh_token"] as? String,
            let user = json["user"] as? [String: Any], let id = user["id"] as? String
        else { return nil }
        accessToken = access
        refreshToken = refresh
        userID = id
        email = user["email"] as? String ?? ""
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
