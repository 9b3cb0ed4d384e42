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

    @Test("10,000 rotations of one session leave a handful of token rows; a pruned token is refused with 400, not a 5xx")
    func boundedRefreshTokens() async throws {
        try await TestServer.with(configure: {
            $0.autoconfirm = true
            $0.rateLimits.enabled = false
            $0.cleanupInterval = 0.2
        }) { server in
            let session = try await server.signUp("rotations@example.com")
            var tokens = [session.refreshToken]
            for _ in 0..<10_000 {
                let response = try await server.refresh(tokens.last!)
                guard response.status == 200, let next = TestSession(response) else {
                    throw TestFailure("rotation \(tokens.count) failed: \(response.status) \(response.text)")
                }
                tokens.append(next.refreshToken)
            }
            #expect(try Self.rows("refresh_tokens", in: server) == 10_001, "nothing is old enough yet")

            // A day and a bit later the cleanup prunes every spent token but the active one's parent.
            server.clock.advance(by: ServerConfiguration.defaultRefreshTokenRetention + 60)
            var remaining = -1
            let pruned = await eventually(timeout: 120) {
                remaining = (try? Self.rows("refresh_tokens", in: server)) ?? -1
                return remaining >= 0 && remaining <= 2
            }
            #expect(pruned, "\(remaining) refresh token rows after the cleanup")
            let prunedToken = try await server.refresh(tokens[0])
            #expect(prunedToken.status == 400)
            #expect(prunedToken.errorCode == "refresh_token_not_found")
            let prunedRecent = try await server.refresh(tokens[tokens.count - 3])
            #expect(prunedRecent.errorCode == "refresh_token_not_found", "the grandparent of the active token is gone too")
            // The lost-response rule still holds, and the session goes on.
            let parent = try await server.refresh(tokens[tokens.count - 2])
            #expect(parent.status == 200)
            #expect(TestSession(parent)?.refreshToken == tokens.last)
            let next = try await server.refresh(tokens.last!)
            #expect(next.status == 200)
            #expect(try await server.auditActions().contains("token_revoked") == false, "a pruned token revokes nothing")
        }
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
