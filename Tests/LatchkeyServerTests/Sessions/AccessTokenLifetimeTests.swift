import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// `--access-token-ttl`: any lifetime of at least one second, as GoTrue takes any positive one.
@Suite("Access-token lifetime")
struct AccessTokenLifetimeTests {
    @Test("1 s is accepted and issued, 0 and negative are refused")
    func shortLifetimes() async throws {
        var configuration = ServerConfiguration(dataDirectory: FileManager.default.temporaryDirectory)
        for ttl: TimeInterval in [1, 5, 29, 30, 59, 3600] {
            configuration.accessTokenTTL = ttl
            #expect(throws: Never.self) { try configuration.validate() }
        }
        for ttl: TimeInterval in [0, 0.5, -1] {
            configuration.accessTokenTTL = ttl
            #expect(throws: ConfigurationError.self) { try configuration.validate() }
        }

        let capture = LogCapture()
        try await TestServer.with(logger: capture.logger(label: "latchkey"), configure: { $0.accessTokenTTL = 1 }) { server in
            let session = try await server.signUp("short@example.com")
            let response = try await server.signIn("short@example.com")
            #expect(response["expires_in"] as? Int == 1)
            #expect(try await server.isAlive(session))
            server.clock.advance(by: 1)
            let expired = try await server.request(.GET, "/user", bearer: session.accessToken)
            expired.expectError(403, "bad_jwt")
            let refreshed = try #require(TestSession(try await server.refresh(session.refreshToken)))
            #expect(try await server.isAlive(refreshed))
        }
        #expect(capture.lines.contains { $0.contains("short access-token lifetime") }, "a lifetime under 60 s is warned about")
    }

    @Test("the default lifetime logs no warning")
    func noWarningByDefault() async throws {
        let capture = LogCapture()
        try await TestServer.with(logger: capture.logger(label: "latchkey")) { _ in }
        #expect(!capture.lines.contains { $0.contains("short access-token lifetime") })
    }
}
