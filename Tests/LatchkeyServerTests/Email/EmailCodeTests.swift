import Foundation
import Testing

@testable import LatchkeyServer

/// The six-digit codes every email carries: `POST /verify {email, token, type}`.
@Suite("Email codes")
struct EmailCodeTests {
    func server(_ body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with(configure: { $0.autoconfirm = false }) { server in try await body(server) }
    }

    func signUp(_ server: TestServer, _ email: String) async throws {
        let response = try await server.request(.POST, "/signup", json: ["email": email, "password": "correct horse battery"])
        #expect(response.status == 200, "\(response.text)")
    }

    @Test("the sign-up code confirms and signs in once; the link of the same email is spent with it")
    func codeSignsInOnce() async throws {
        try await server { server in
            try await signUp(server, "code@example.com")
            let code = try server.emailCode(to: "code@example.com")
            #expect(code.count == 6 && code.allSatisfy(\.isNumber))
            let link = try server.linkToken(to: "code@example.com", type: "signup")
            let verified = try await server.request(.POST, "/verify", json: ["type": "signup", "email": "Code@Example.com", "token": code])
            let session = try #require(TestSession(verified), "\(verified.text)")
            #expect(session.email == "code@example.com")
            #expect((verified["user"] as? [String: Any])?["email_confirmed_at"] is String)
            try await server.request(.POST, "/verify", json: ["type": "signup", "email": "code@example.com", "token": code])
                .expectError(403, "otp_expired")
            try await server.request(.POST, "/verify", json: ["type": "signup", "token_hash": link]).expectError(403, "otp_expired")
        }
    }

    @Test("a code is good only for the address it was mailed to, and only for its type")
    func codeForAnotherAddress() async throws {
        try await server { server in
            try await signUp(server, "alice@example.com")
            try await signUp(server, "mallory@example.com")
            let alicesCode = try server.emailCode(to: "alice@example.com")
            try await server.request(.POST, "/verify", json: ["type": "signup", "email": "mallory@example.com", "token": alicesCode])
                .expectError(403, "otp_expired")
            try await server.request(.POST, "/verify", json: ["type": "recovery", "email": "alice@example.com", "token": alicesCode])
                .expectError(403, "otp_expired")
            // Neither attempt spent Alice's code.
            #expect(
                TestSession(try await server.request(.POST, "/verify", json: ["type": "email", "email": "alice@example.com", "token": alicesCode]))
                    != nil)
        }
    }

    @Test("ten wrong codes lock the address's codes, even the right one, until the window passes")
    func wrongCodesAreLimited() async throws {
        try await server { server in
            try await signUp(server, "guess@example.com")
            let code = try server.emailCode(to: "guess@example.com")
            var wrong = 0
            for candidate in 0..<11 where wrong < 10 {
                let guess = String(format: "%06d", candidate)
                guard guess != code else { continue }
                try await server.request(.POST, "/verify", json: ["type": "signup", "email": "guess@example.com", "token": guess])
                    .expectError(403, "otp_expired")
                wrong += 1
            }
            try await server.request(.POST, "/verify", json: ["type": "signup", "email": "guess@example.com", "token": code])
                .expectError(429, "over_request_rate_limit")
            server.clock.advance(by: 301)
            #expect(
                TestSession(try await server.request(.POST, "/verify", json: ["type": "signup", "email": "guess@example.com", "token": code])) != nil)
        }
    }

    @Test("a code expires after --email-code-ttl")
    func codeExpires() async throws {
        try await TestServer.with(configure: {
            $0.autoconfirm = false
            $0.emailCodeTTL = 600
        }) { server in
            try await signUp(server, "late@example.com")
            let code = try server.emailCode(to: "late@example.com")
            server.clock.advance(by: 601)
            try await server.request(.POST, "/verify", json: ["type": "signup", "email": "late@example.com", "token": code])
                .expectError(403, "otp_expired")
        }
    }

    @Test("recovery by code; an email change confirmed by the codes sent to the new address and to the current one")
    func recoveryAndEmailChangeByCode() async throws {
        try await server { server in
            try await signUp(server, "forgot@example.com")
            _ = try await server.request(
                .POST, "/verify", json: ["type": "email", "email": "forgot@example.com", "token": try server.emailCode(to: "forgot@example.com")])
            #expect(
                try await server.request(.POST, "/recover", json: ["email": "forgot@example.com"]).status == 200,
                "recovery right after the confirmation")
            let recovered = try #require(
                TestSession(
                    try await server.request(
                        .POST, "/verify",
                        json: ["type": "recovery", "email": "forgot@example.com", "token": try server.emailCode(to: "forgot@example.com")])))
            #expect(try await server.request(.PUT, "/user", json: ["email": "moved@example.com"], bearer: recovered.accessToken).status == 200)
            let code = try server.emailCode(to: "moved@example.com")
            try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "forgot@example.com", "token": code])
                .expectError(403, "otp_expired")
            let first = try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "moved@example.com", "token": code])
            #expect(first.status == 200 && first["msg"] != nil, "\(first.text)")
            let changed = try await server.request(
                .POST, "/verify",
                json: ["type": "email_change", "email": "forgot@example.com", "token": try server.emailCode(to: "forgot@example.com")])
            #expect((changed["user"] as? [String: Any])?["email"] as? String == "moved@example.com", "\(changed.text)")
        }
    }

    @Test("verify takes a token or a token_hash, not both; a token_hash comes alone; phone codes are GoTrue's otp_expired")
    func verifyInputRules() async throws {
        try await server { server in
            try await server.request(.POST, "/verify", json: ["type": "signup", "token": "123456", "token_hash": "abc", "email": "a@example.com"])
                .expectError(400, "validation_failed")
            try await server.request(.POST, "/verify", json: ["type": "signup"]).expectError(400, "validation_failed")
            try await server.request(.POST, "/verify", json: ["type": "signup", "token_hash": "abc", "email": "a@example.com"])
                .expectError(400, "validation_failed")
            try await server.request(.POST, "/verify", json: ["type": "signup", "token": "123456"]).expectError(400, "validation_failed")
            try await server.request(.POST, "/verify", json: ["token_hash": "abc"]).expectError(400, "validation_failed")
            try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "+15555550100", "token": "123456"])
                .expectError(403, "otp_expired")
        }
    }
}
