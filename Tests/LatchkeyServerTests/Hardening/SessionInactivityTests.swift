import Foundation
import Testing

@testable import LatchkeyServer

/// `--session-inactivity-timeout`, as GoTrue's `GOTRUE_SESSIONS_INACTIVITY_TIMEOUT`.
@Suite("Session inactivity timeout")
struct SessionInactivityTests {
    @Test("a refresh after the session went longer than the timeout without one is GoTrue's 400 session_expired (Inactivity)")
    func expiresAfterInactivity() async throws {
        try await TestServer.with(configure: {
            $0.autoconfirm = true
            $0.sessionInactivityTimeout = 600
        }) { server in
            let session = try await server.signUp("idle@example.com")
            // Active: each refresh within the timeout moves the deadline.
            server.clock.advance(by: 500)
            let t1 = try #require(TestSession(try await server.refresh(session.refreshToken)))
            server.clock.advance(by: 500)
            let t2 = try #require(TestSession(try await server.refresh(t1.refreshToken)))
            // Just inside the deadline still passes (GoTrue: now.After(refreshed_at + timeout)). Not
            // exactly at it: the clock's Double seconds can round a sum of advances by one ulp.
            server.clock.advance(by: 599.5)
            let t3 = try #require(TestSession(try await server.refresh(t2.refreshToken)))
            server.clock.advance(by: 601.5)
            let expired = try await server.refresh(t3.refreshToken)
            #expect(expired.status == 400)
            #expect(expired.errorCode == "session_expired")
            #expect(expired["msg"] as? String == "Invalid Refresh Token: Session Expired (Inactivity)")
            // The parent of the active token is refused the same way, and nothing was revoked.
            let parent = try await server.refresh(t2.refreshToken)
            #expect(parent.errorCode == "session_expired")
            #expect(try await server.auditActions().contains("token_revoked") == false)
        }
    }

    @Test("without a timeout a session never expires for inactivity")
    func noTimeoutByDefault() async throws {
        try await TestServer.with(configure: { $0.autoconfirm = true }) { server in
            let session = try await server.signUp("forever@example.com")
            server.clock.advance(by: 400 * 86_400)
            #expect(try await server.refresh(session.refreshToken).status == 200)
        }
    }

    @Test("the timeout must be positive")
    func validation() {
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp"))
        configuration.sessionInactivityTimeout = 0
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
    }
}
