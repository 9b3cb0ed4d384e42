import Foundation
import LatchkeyTestSupport
import Testing

@testable import LatchkeyServer

/// The cleanup task against a long-lived session: ten thousand rotations. A load test (about 30
/// seconds of requests alone), so it runs after the main suite, one test at a time (every suite
/// whose name ends in `LoadTests` does; see Documentation/Contributing.md).
@Suite("Cleanup task under load", .serialized)
struct CleanupLoadTests {
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
            #expect(try CleanupTests.rows("refresh_tokens", in: server) == 10_001, "nothing is old enough yet")

            // A day and a bit later the cleanup prunes every spent token but the active one's parent.
            server.clock.advance(by: ServerConfiguration.defaultRefreshTokenRetention + 60)
            var remaining = -1
            let pruned = await eventually(timeout: 120) {
                remaining = (try? CleanupTests.rows("refresh_tokens", in: server)) ?? -1
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
}
