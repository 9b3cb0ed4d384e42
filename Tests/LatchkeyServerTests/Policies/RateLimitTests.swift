import Foundation
import Testing

@testable import LatchkeyServer

/// Rate limits answer GoTrue's 429 with Retry-After and cost an attacker, not the user.
@Suite("Rate limits")
struct RateLimitTests {
    @Test("failed password attempts per account lock further attempts, even with the right password")
    func failedPasswordsPerAccount() async throws {
        try await TestServer.with(configure: { $0.rateLimits.failedPasswordAttemptsPerAccount = .init(count: 3, per: 300) }) { server in
            try await server.signUp("guess@example.com", "the real password")
            for _ in 0..<3 { #expect(try await server.signIn("guess@example.com", "wrong guess").errorCode == "invalid_credentials") }
            let locked = try await server.signIn("guess@example.com", "the real password")
            locked.expectError(429, "over_request_rate_limit")
            let retryAfter = try #require(Int(locked.headers.first(name: "Retry-After") ?? ""))
            #expect(retryAfter > 0 && retryAfter <= 300)
            // Another account is not affected.
            try await server.signUp("other@example.com", "other password")
            #expect(try await server.signIn("other@example.com", "other password").status == 200)
            server.clock.advance(by: 301)
            #expect(try await server.signIn("guess@example.com", "the real password").status == 200)
        }
    }

    @Test("new addresses per user: taken ones count too, so email_exists cannot probe for accounts; another user is not affected")
    func addressChangesPerUser() async throws {
        try await TestServer.with(configure: { $0.rateLimits.addressChangesPerUser = .init(count: 3, per: 3600) }) { server in
            try await server.signUp("taken@example.com")
            let prober = try await server.signUp("prober@example.com")
            for _ in 0..<3 {
                let taken = try await server.request(.PUT, "/user", json: ["email": "taken@example.com"], bearer: prober.accessToken)
                taken.expectError(422, "email_exists")
            }
            let limited = try await server.request(.PUT, "/user", json: ["email": "taken@example.com"], bearer: prober.accessToken)
            limited.expectError(429, "over_request_rate_limit")
            #expect(limited.headers.first(name: "Retry-After") != nil)
            let free = try await server.request(.PUT, "/user", json: ["email": "free@example.com"], bearer: prober.accessToken)
            free.expectError(429, "over_request_rate_limit")
            // Changing only the metadata is not limited, nor is another user.
            #expect(try await server.request(.PUT, "/user", json: ["data": ["a": 1]], bearer: prober.accessToken).status == 200)
            let other = try await server.signUp("other@example.com")
            #expect(try await server.request(.PUT, "/user", json: ["email": "taken@example.com"], bearer: other.accessToken).status == 422)
            server.clock.advance(by: 3601)
            let later = try #require(TestSession(try await server.signIn("prober@example.com")), "the hour's access token has expired")
            #expect(try await server.request(.PUT, "/user", json: ["email": "free@example.com"], bearer: later.accessToken).status == 200)
        }
    }

    @Test("sign-ins per IP are limited")
    func signInsPerIP() async throws {
        try await TestServer.with(configure: { $0.rateLimits.signInsPerIP = .init(count: 5, per: 300) }) { server in
            try await server.signUp("ip@example.com")
            for _ in 0..<4 { #expect(try await server.signIn("ip@example.com").status == 200) }
            let limited = try await server.signIn("ip@example.com")
            #expect(limited.status == 429)
            #expect(limited.headers.first(name: "Retry-After") != nil)
        }
    }

    @Test("disabled limits (benchmarks) never answer 429")
    func disabled() async throws {
        try await TestServer.with(configure: {
            $0.rateLimits = .disabled
            $0.rateLimits.signInsPerIP = .init(count: 1, per: 300)
        }) { server in
            try await server.signUp("free@example.com")
            for _ in 0..<5 { #expect(try await server.signIn("free@example.com").status == 200) }
        }
    }
}
