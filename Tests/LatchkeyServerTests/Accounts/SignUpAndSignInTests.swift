import Foundation
import Testing

@testable import LatchkeyServer

/// `POST /signup` and `POST /token?grant_type=password`.
@Suite("Sign-up and password sign-in")
struct SignUpAndSignInTests {
    @Test("autoconfirm sign-up returns a GoTrue session with the user's fields")
    func signUpAutoconfirm() async throws {
        try await TestServer.with { server in
            let response = try await server.request(
                .POST, "/signup", json: ["email": "  New.User@Example.COM ", "password": "  spaced password  ", "data": ["display_name": "New"]])
            #expect(response.status == 200)
            let json = response.json
            #expect(json["token_type"] as? String == "bearer")
            #expect(json["expires_in"] as? Int == 3600)
            #expect((json["expires_at"] as? Int ?? 0) > 0)
            let user = try #require(json["user"] as? [String: Any])
            #expect(user["email"] as? String == "new.user@example.com", "trimmed and lower-cased")
            #expect(UUID(uuidString: user["id"] as? String ?? "") != nil)
            for key in [
                "aud", "role", "email_confirmed_at", "confirmed_at", "last_sign_in_at", "app_metadata", "user_metadata", "created_at", "updated_at",
            ] {
                #expect(user[key] != nil, "user.\(key)")
            }
            #expect((user["user_metadata"] as? [String: Any])?["display_name"] as? String == "New")
            // The password was not trimmed: the exact string signs in, the trimmed one does not.
            #expect(try await server.signIn("new.user@example.com", "  spaced password  ").status == 200)
            #expect(try await server.signIn("new.user@example.com", "spaced password").status == 400)
        }
    }

    @Test("without autoconfirm: the user without tokens, a confirmation mail, and sign-in refused until confirmed")
    func signUpNeedsConfirmation() async throws {
        try await TestServer.with(configure: { $0.autoconfirm = false }) { server in
            let response = try await server.request(.POST, "/signup", json: ["email": "confirm@example.com", "password": "correct horse battery"])
            #expect(response.status == 200)
            #expect(response["access_token"] == nil)
            #expect(response["email"] as? String == "confirm@example.com")
            #expect(response["confirmation_sent_at"] as? String != nil)
            let mail = try #require(try server.outbox().last)
            #expect(mail.contains("To: confirm@example.com"))
            #expect(mail.contains("/verify?token="))
            let refused = try await server.signIn("confirm@example.com")
            refused.expectError(400, "email_not_confirmed")
        }
    }

    @Test("sign-up errors: existing user, weak password, bad email")
    func signUpErrors() async throws {
        try await TestServer.with { server in
            try await server.signUp("taken@example.com")
            let taken = try await server.request(.POST, "/signup", json: ["email": "TAKEN@example.com", "password": "another password"])
            taken.expectError(422, "user_already_exists")
            let weak = try await server.request(.POST, "/signup", json: ["email": "weak@example.com", "password": "short"])
            weak.expectError(422, "weak_password")
            #expect(((weak["weak_password"] as? [String: Any])?["reasons"] as? [String]) == ["length"])
            let noEmail = try await server.request(.POST, "/signup", json: ["email": "", "password": "correct horse battery"])
            noEmail.expectError(422, "anonymous_provider_disabled")
            for email in ["not-an-email", "a@b", "two@@example.com", "spa ce@example.com"] {
                let bad = try await server.request(.POST, "/signup", json: ["email": email, "password": "correct horse battery"])
                #expect(bad.status == 400, "\(email)")
                #expect(bad.errorCode == "validation_failed", "\(email)")
            }
            let tooLong = try await server.request(
                .POST, "/signup", json: ["email": "long@example.com", "password": String(repeating: "x", count: 73)])
            #expect(tooLong.status == 400)
            #expect(try await server.signIn("weak@example.com", "short").errorCode == "invalid_credentials", "nothing was created")
        }
    }

    @Test("wrong password and unknown email get the same answer")
    func invalidCredentialsAreIndistinguishable() async throws {
        try await TestServer.with { server in
            try await server.signUp("known@example.com")
            let wrong = try await server.signIn("known@example.com", "wrong password!")
            let unknown = try await server.signIn("nobody@example.com", "wrong password!")
            #expect(wrong.status == 400)
            #expect(wrong.status == unknown.status)
            #expect(wrong.body == unknown.body)
            #expect(wrong.errorCode == "invalid_credentials")
        }
    }

    @Test("a sign-in records last_sign_in_at and a login audit event, without secrets")
    func signInAudit() async throws {
        try await TestServer.with { server in
            try await server.signUp("audit@example.com", "audit password 1")
            let response = try await server.signIn("audit@example.com", "audit password 1")
            #expect(response.status == 200)
            let session = try #require(TestSession(response))
            let audit = try await server.request(.GET, "/admin/audit", bearer: server.server.serviceRoleKey)
            #expect(audit.status == 200)
            #expect(!audit.text.contains("audit password 1"))
            #expect(!audit.text.contains(session.refreshToken))
            #expect(!audit.text.contains(session.accessToken))
            let actions = try await server.auditActions()
            #expect(actions.contains("login"))
            #expect(actions.contains("user_signedup"))
            let entry = try #require(audit.jsonArray?.first)
            #expect(entry["ip_address"] as? String == "127.0.0.1")
            #expect(entry["created_at"] as? String != nil)
            let payload = try #require(entry["payload"] as? [String: Any])
            #expect(payload["actor_username"] as? String == "audit@example.com")
            #expect(payload["actor_id"] as? String == session.userID)
        }
    }

    @Test("disabled sign-ups are refused and reported in /settings")
    func signupDisabled() async throws {
        try await TestServer.with(configure: { $0.disableSignup = true }) { server in
            let response = try await server.request(.POST, "/signup", json: ["email": "no@example.com", "password": "correct horse battery"])
            response.expectError(422, "signup_disabled")
            #expect(try await server.request(.GET, "/settings")["disable_signup"] as? Bool == true)
        }
    }

    @Test("grant types: missing and unknown are 400 errors")
    func grantTypes() async throws {
        try await TestServer.with { server in
            let missing = try await server.request(.POST, "/token", json: ["email": "a@example.com", "password": "x"])
            #expect(missing.status == 400)
            let unknown = try await server.request(.POST, "/token?grant_type=magic", json: [:])
            unknown.expectError(400, "unsupported_grant_type")
        }
    }
}
