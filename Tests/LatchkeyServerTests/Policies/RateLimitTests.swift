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
