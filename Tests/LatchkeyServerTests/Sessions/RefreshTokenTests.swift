import Foundation
import Testing

@testable import LatchkeyServer

/// `POST /token?grant_type=refresh_token`: rotation, parent reuse, the reuse interval,
/// reuse detection and concurrency — the rules that decide whether users stay signed in.
@Suite("Refresh-token rotation")
struct RefreshTokenTests {
    @Test("every refresh rotates the token and keeps the user")
    func rotation() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("rotate@example.com")
            let first = try await server.refresh(session.refreshToken)
            #expect(first.status == 200)
            let rotated = try #require(TestSession(first))
            #expect(rotated.refreshToken != session.refreshToken)
            #expect(rotated.userID == session.userID)
            #expect(rotated.refreshToken.count >= 22, "at least 128 bits")
            let user = try await server.request(.GET, "/user", bearer: rotated.accessToken)
            #expect(user.status == 200)
            #expect(try await server.auditActions().contains("token_refreshed"))
        }
    }

    @Test("reusing the parent of the active token returns the active session (a lost response costs nothing)")
    func parentReuse() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("parent@example.com")
            let rotated = try #require(TestSession(try await server.refresh(session.refreshToken)))
            // Long after the reuse interval: the parent is still forgiven.
            server.clock.advance(by: 3600)
            let again = try await server.refresh(session.refreshToken)
            #expect(again.status == 200)
            #expect(TestSession(again)?.refreshToken == rotated.refreshToken, "same refresh token as the active one")
            // And the active token still works afterwards.
            let next = try await server.refresh(rotated.refreshToken)
            #expect(next.status == 200)
        }
    }

    @Test("an older token inside the reuse interval yields the active token")
    func reuseWithinInterval() async throws {
        try await TestServer.with { server in
            let t0 = try await server.signUp("interval@example.com").refreshToken
            let t1 = try #require(TestSession(try await server.refresh(t0))).refreshToken
            let t2 = try #require(TestSession(try await server.refresh(t1))).refreshToken
            server.clock.advance(by: 5)
            let reused = try await server.refresh(t0)
            #expect(reused.status == 200)
            #expect(TestSession(reused)?.refreshToken == t2)
        }
    }

    @Test("an older token outside the reuse interval revokes the whole session")
    func reuseOutsideIntervalRevokes() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("stolen@example.com")
            let t0 = session.refreshToken
            let t1 = try #require(TestSession(try await server.refresh(t0))).refreshToken
            let t2Session = try #require(TestSession(try await server.refresh(t1)))
            server.clock.advance(by: 11)
            let reused = try await server.refresh(t0)
            reused.expectError(400, "refresh_token_already_used")
            // The family is gone: the active token and its access token are refused. (GoTrue,
            // which revokes the family but keeps the session, says refresh_token_already_used.)
            let active = try await server.refresh(t2Session.refreshToken)
            active.expectError(400, "refresh_token_not_found")
            let user = try await server.request(.GET, "/user", bearer: t2Session.accessToken)
            #expect(user.status == 403)
            #expect(try await server.auditActions().contains("token_revoked"))
        }
    }

    @Test("unknown, empty and missing refresh tokens are refused clearly")
    func unknownTokens() async throws {
        try await TestServer.with { server in
            let unknown = try await server.refresh("this-token-was-never-issued")
            unknown.expectError(400, "refresh_token_not_found")
            let missing = try await server.request(.POST, "/token?grant_type=refresh_token", json: [:])
            missing.expectError(400, "validation_failed")
            #expect(missing["msg"] as? String == "Refresh token is not valid")
            for short in ["", "abc", "ABCDEFGHIJKL"] {
                try await server.refresh(short).expectError(400, "validation_failed")
            }
            try await server.refresh("abcdefghijk1").expectError(400, "refresh_token_not_found")
        }
    }

    @Test("a token of a session ended by sign-out, admin sign-out or deletion answers GoTrue's refresh_token_not_found")
    func endedSession() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            let session = try await server.signUp("ended@example.com")
            let spent = session.refreshToken
            let active = try #require(TestSession(try await server.refresh(spent)))
            let logout = try await server.request(.POST, "/logout", bearer: active.accessToken)
            #expect(logout.status == 204)
            // The active token, and its spent parent (which would otherwise yield the active one).
            for token in [active.refreshToken, spent] {
                let refresh = try await server.refresh(token)
                refresh.expectError(400, "refresh_token_not_found")
                #expect(refresh["msg"] as? String == "Invalid Refresh Token: Refresh Token Not Found")
                #expect(refresh["code"] as? Int == 400)
            }
            let newer = try #require(TestSession(try await server.signIn("ended@example.com")))
            #expect(try await server.request(.POST, "/admin/users/\(newer.userID)/logout", bearer: key).status == 204)
            try await server.refresh(newer.refreshToken).expectError(400, "refresh_token_not_found")

            let last = try #require(TestSession(try await server.signIn("ended@example.com")))
            #expect(try await server.request(.DELETE, "/admin/users/\(last.userID)", bearer: key).status == 200)
            try await server.refresh(last.refreshToken).expectError(400, "refresh_token_not_found")
        }
    }

    @Test("a banned user's refresh answers GoTrue's user_banned message")
    func bannedRefresh() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("banned-refresh@example.com")
            let ban = try await server.request(
                .PUT, "/admin/users/\(session.userID)", json: ["ban_duration": "1h"], bearer: server.server.serviceRoleKey)
            #expect(ban.status == 200)
            let refresh = try await server.refresh(session.refreshToken)
            refresh.expectError(400, "user_banned")
            #expect(refresh["msg"] as? String == "Invalid Refresh Token: User Banned")
        }
    }

    @Test("a session past its timebox answers session_expired")
    func expiredSession() async throws {
        try await TestServer.with(configure: { $0.sessionTimebox = 600 }) { server in
            let session = try await server.signUp("timebox@example.com")
            server.clock.advance(by: 601)
            let refresh = try await server.refresh(session.refreshToken)
            refresh.expectError(400, "session_expired")
            #expect(refresh["msg"] as? String == "Invalid Refresh Token: Session Expired")
        }
    }

    @Test("50 concurrent refreshes of one token produce exactly one live successor")
    func concurrentRefreshes() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("race@example.com")
            let responses = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for _ in 0..<50 { group.addTask { try await server.refresh(session.refreshToken) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(responses.allSatisfy { $0.status == 200 }, "no racing client is signed out")
            let tokens = Set(responses.compactMap { TestSession($0)?.refreshToken })
            #expect(tokens.count == 1, "one successor, handed to every caller")
            let refreshed = try await server.auditActions().filter { $0 == "token_refreshed" }
            #expect(refreshed.count == 1)
            #expect(try await server.refresh(try #require(tokens.first)).status == 200)
        }
    }

    @Test("a crash between rotation and the client's write: the old token still signs in")
    func crashBetweenRotationAndStore() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("crash@example.com")
            // The server rotated, but the client never stored the response.
            _ = try await server.refresh(session.refreshToken)
            server.clock.advance(by: 86_400)
            let relaunch = try await server.refresh(session.refreshToken)
            #expect(relaunch.status == 200)
            let user = try await server.request(.GET, "/user", bearer: try #require(TestSession(relaunch)).accessToken)
            #expect(user.status == 200)
        }
    }

    @Test("a banned user's refresh is refused with user_banned")
    func bannedUser() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("banned-refresh@example.com")
            let ban = try await server.request(
                .PUT, "/admin/users/\(session.userID)", json: ["ban_duration": "24h"], bearer: server.server.serviceRoleKey)
            #expect(ban.status == 200)
            let refresh = try await server.refresh(session.refreshToken)
            refresh.expectError(400, "user_banned")
        }
    }

    @Test("refreshes per session are rate limited with Retry-After")
    func refreshRateLimit() async throws {
        try await TestServer.with(configure: { $0.rateLimits.refreshesPerSession = .init(count: 3, per: 300) }) { server in
            var token = try await server.signUp("refresh-limit@example.com").refreshToken
            for _ in 0..<3 { token = try #require(TestSession(try await server.refresh(token))).refreshToken }
            let limited = try await server.refresh(token)
            limited.expectError(429, "over_request_rate_limit")
            #expect(Int(limited.headers.first(name: "Retry-After") ?? "") ?? 0 > 0)
            server.clock.advance(by: 301)
            #expect(try await server.refresh(token).status == 200, "the token survived the limit")
        }
    }
}
