import Foundation
import Testing

@testable import LatchkeyServer

/// Confirmation, recovery and resend, with the links read from the outbox files.
@Suite("Email links")
struct EmailLinkTests {
    func unconfirmedServer(_ body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with(configure: {
            $0.autoconfirm = false
            $0.siteURL = "https://app.example.com/welcome"
        }) { server in try await body(server) }
    }

    @Test("the confirmation email's link (POST /verify) confirms and signs in; the link works once")
    func confirmByPost() async throws {
        try await unconfirmedServer { server in
            _ = try await server.request(.POST, "/signup", json: ["email": "c1@example.com", "password": "correct horse battery"])
            let token = try server.linkToken(to: "c1@example.com", type: "signup")
            let verified = try await server.request(.POST, "/verify", json: ["type": "signup", "token_hash": token])
            #expect(verified.status == 200)
            let session = try #require(TestSession(verified))
            #expect(try await server.request(.GET, "/user", bearer: session.accessToken)["email_confirmed_at"] as? String != nil)
            #expect(try await server.signIn("c1@example.com").status == 200)
            let again = try await server.request(.POST, "/verify", json: ["type": "signup", "token_hash": token])
            again.expectError(403, "otp_expired")
        }
    }

    @Test("GET /verify redirects to the site with the session in the fragment, errors likewise")
    func confirmByLink() async throws {
        try await unconfirmedServer { server in
            _ = try await server.request(.POST, "/signup", json: ["email": "c2@example.com", "password": "correct horse battery"])
            let token = try server.linkToken(to: "c2@example.com", type: "signup")
            let redirect = try await server.request(.GET, "/verify?token=\(token)&type=signup&redirect_to=https://app.example.com/welcome/done")
            #expect(redirect.status == 303)
            let location = try #require(redirect.headers.first(name: "Location"))
            #expect(location.hasPrefix("https://app.example.com/welcome/done#access_token="))
            #expect(location.contains("refresh_token="))
            #expect(location.contains("type=signup"))
            #expect(!location.contains("?access_token"), "tokens only in the fragment")

            let reused = try await server.request(.GET, "/verify?token=\(token)&type=signup")
            let errorLocation = try #require(reused.headers.first(name: "Location"))
            #expect(errorLocation.hasPrefix("https://app.example.com/welcome#error=access_denied"))
            #expect(errorLocation.contains("error_code=otp_expired"))
        }
    }

    @Test("redirect_to outside the site URL is ignored: a session is never sent to another site")
    func openRedirectRefused() async throws {
        try await unconfirmedServer { server in
            _ = try await server.request(.POST, "/signup", json: ["email": "c3@example.com", "password": "correct horse battery"])
            let token = try server.linkToken(to: "c3@example.com", type: "signup")
            for evil in ["https://evil.example.net/steal", "https://app.example.com.evil.net/welcome", "https://app.example.com/welcomeX"] {
                let policy = RedirectPolicy(
                    siteURL: "https://app.example.com/welcome", origin: ServerOrigin("http://127.0.0.1:9999"),
                    additionalURLs: ["myapp://auth-callback"])
                #expect(policy.resolve(evil) == "https://app.example.com/welcome", "\(evil)")
                #expect(policy.resolve("myapp://auth-callback/done") == "myapp://auth-callback/done")
                #expect(policy.resolve("https://app.example.com/welcome/next") == "https://app.example.com/welcome/next")
            }
            // A native app's loopback listener, on any port (RFC 8252 §7.3, as GoTrue); names and
            // lookalikes are not loopback literals.
            let policy = RedirectPolicy(siteURL: "https://app.example.com", origin: ServerOrigin("http://127.0.0.1:9999"), additionalURLs: [])
            for loopback in ["http://127.0.0.1:53124/callback", "http://[::1]:8080/cb", "http://127.1.2.3/cb"] {
                #expect(policy.resolve(loopback) == loopback)
            }
            for notLoopback in [
                "http://localhost.evil.net/cb", "http://127.0.0.1.evil.net/cb", "http://128.0.0.1/cb", "http://2130706433/cb",
                "http://user@127.0.0.1/cb", "javascript://127.0.0.1/%0aalert(1)",
            ] {
                #expect(policy.resolve(notLoopback) == "https://app.example.com", "\(notLoopback)")
            }
            let redirect = try await server.request(.GET, "/verify?token=\(token)&type=signup&redirect_to=https://evil.example.net/steal")
            let location = try #require(redirect.headers.first(name: "Location"))
            #expect(location.hasPrefix("https://app.example.com/welcome#access_token="))
        }
    }

    @Test("an expired confirmation link is refused")
    func expiredLink() async throws {
        try await unconfirmedServer { server in
            _ = try await server.request(.POST, "/signup", json: ["email": "c4@example.com", "password": "correct horse battery"])
            let token = try server.linkToken(to: "c4@example.com", type: "signup")
            server.clock.advance(by: 86_401)
            #expect(try await server.request(.POST, "/verify", json: ["type": "signup", "token_hash": token]).errorCode == "otp_expired")
        }
    }

    @Test("recovery: same answer for known and unknown emails; the link signs in; a new password works")
    func recovery() async throws {
        try await TestServer.with { server in
            try await server.signUp("forgot@example.com", "forgotten password")
            let known = try await server.request(.POST, "/recover", json: ["email": "forgot@example.com"])
            let unknown = try await server.request(.POST, "/recover", json: ["email": "ghost@example.com"])
            #expect(known.status == 200)
            #expect(known.status == unknown.status)
            #expect(known.body == unknown.body)
            #expect(try server.outbox().filter { $0.contains("ghost@example.com") }.isEmpty)
            let token = try server.linkToken(to: "forgot@example.com", type: "recovery")
            let session = try #require(TestSession(try await server.request(.POST, "/verify", json: ["type": "recovery", "token_hash": token])))
            #expect(try await server.request(.PUT, "/user", json: ["password": "remembered password"], bearer: session.accessToken).status == 200)
            #expect(try await server.signIn("forgot@example.com", "remembered password").status == 200)
            #expect(try await server.auditActions().contains("user_recovery_requested"))
            // A signup token cannot be used as a recovery token and vice versa.
            #expect(try await server.request(.POST, "/verify", json: ["type": "signup", "token_hash": token]).errorCode == "otp_expired")
        }
    }

    @Test("resend sends a new confirmation, invalidating the old link; emails per address are rate limited")
    func resendAndEmailLimit() async throws {
        try await unconfirmedServer { server in
            _ = try await server.request(.POST, "/signup", json: ["email": "c5@example.com", "password": "correct horse battery"])
            let first = try server.linkToken(to: "c5@example.com", type: "signup")
            let tooSoon = try await server.request(.POST, "/resend", json: ["type": "signup", "email": "c5@example.com"])
            tooSoon.expectError(429, "over_email_send_rate_limit")
            #expect(tooSoon.headers.first(name: "Retry-After") != nil)
            server.clock.advance(by: 61)
            #expect(try await server.request(.POST, "/resend", json: ["type": "signup", "email": "c5@example.com"]).status == 200)
            let second = try server.linkToken(to: "c5@example.com", type: "signup")
            #expect(first != second)
            #expect(try await server.request(.POST, "/verify", json: ["type": "signup", "token_hash": first]).status == 403)
            #expect(try await server.request(.POST, "/verify", json: ["type": "signup", "token_hash": second]).status == 200)
            let badType = try await server.request(.POST, "/verify", json: ["type": "bogus", "token_hash": second])
            #expect(badType.status == 400)
        }
    }
}
