import Foundation
import GRDB
import LatchkeyTestSupport
import Testing

@testable import LatchkeyServer

/// The cleanup task against the real server: tables stay bounded, and nobody is signed out or
/// answered a 5xx for it.
@Suite("Cleanup task")
struct CleanupTests {
    /// The rows of `table` in the server's SQLite database.
    static func rows(_ table: String, in server: TestServer) throws -> Int {
        var configuration = Configuration()
        configuration.readonly = true
        let queue = try DatabaseQueue(path: server.directory.appendingPathComponent("latchkey.sqlite").path, configuration: configuration)
        defer { try? queue.close() }
        return try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 }
    }

    @Test("expired sessions, old links and old audit entries go; sessions in use stay")
    func sessionsLinksAudit() async throws {
        try await TestServer.with(configure: {
            $0.autoconfirm = true
            $0.cleanupInterval = 0.2
            $0.sessionInactivityTimeout = 3600
            $0.auditRetention = 7 * 86_400
        }) { server in
            let idle = try await server.signUp("idle@example.com")
            let active = try await server.signUp("active@example.com")
            let recovery = try await server.request(.POST, "/recover", json: ["email": "idle@example.com"])
            #expect(recovery.status == 200)
            #expect(try Self.rows("one_time_tokens", in: server) == 1)
            #expect(try Self.rows("sessions", in: server) == 2)
            var activeToken = active.refreshToken
            // Eight days in steps of 30 minutes: one session refreshes each step, the other never.
            for _ in 0..<(8 * 48) {
                server.clock.advance(by: 1800)
                activeToken = try #require(TestSession(try await server.refresh(activeToken))).refreshToken
            }
            // Wait for what is asserted below — the idle session, the link and the sign-ups' audit
            // entries (over seven days old now) all gone — not for the first of them: each
            // cleanup pass runs at the clock's time, and the last steps can finish before a pass
            // has run past the audit cutoff.
            var seen = (sessions: -1, links: -1, signUpAudits: -1)
            let cleaned = await eventually(timeout: 120) {
                seen.sessions = (try? Self.rows("sessions", in: server)) ?? -1
                seen.links = (try? Self.rows("one_time_tokens", in: server)) ?? -1
                seen.signUpAudits = ((try? await server.auditActions()) ?? ["?"]).filter { $0 == "user_signedup" || $0 == "?" }.count
                return seen.sessions == 1 && seen.links == 0 && seen.signUpAudits == 0
            }
            #expect(cleaned, "after the cleanup: \(seen.sessions) session(s), \(seen.links) link(s), \(seen.signUpAudits) sign-up audit entries")
            let gone = try await server.refresh(idle.refreshToken)
            #expect(gone.status == 400)
            #expect(gone.errorCode == "refresh_token_not_found")
            #expect(try await server.refresh(activeToken).status == 200)
            // The sign-ups' audit entries are over seven days old now.
            let actions = try await server.auditActions()
            #expect(!actions.contains("user_signedup"))
            #expect(actions.contains("token_refreshed"))
        }
    }
}
