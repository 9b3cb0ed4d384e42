import Foundation
import Testing

@testable import LatchkeyServer

/// `POST /otp`, `POST /magiclink`, `POST /invite` and `POST /admin/generate_link`.
@Suite("Email sign-in, invitations and generated links")
struct EmailSignInTests {
    @Test("/otp mails a confirmed account a magic link and code; both sign in, once between them")
    func otpForExistingAccount() async throws {
        try await TestServer.with { server in
            try await server.signUp("otp@example.com")
            #expect(try await server.request(.POST, "/otp", json: ["email": "otp@example.com", "create_user": false]).status == 200)
            let link = try server.linkToken(to: "otp@example.com", type: "magiclink")
            let code = try server.emailCode(to: "otp@example.com")
            let byCode = try await server.request(.POST, "/verify", json: ["type": "magiclink", "email": "otp@example.com", "token": code])
            #expect(TestSession(byCode)?.email == "otp@example.com", "\(byCode.text)")
            try await server.request(.POST, "/verify", json: ["type": "magiclink", "token_hash": link]).expectError(403, "otp_expired")
            server.clock.advance(by: 61)
            #expect(try await server.request(.POST, "/magiclink", json: ["email": "otp@example.com"]).status == 200)
            let link2 = try server.linkToken(to: "otp@example.com", type: "magiclink")
            #expect(TestSession(try await server.request(.POST, "/verify", json: ["type": "magiclink", "token_hash": link2])) != nil)
        }
    }

    @Test("/otp creates the account unless create_user is false — and answers the same either way")
    func otpCreatesUsers() async throws {
        try await TestServer.with(configure: { $0.autoconfirm = false }) { server in
            let refused = try await server.request(.POST, "/otp", json: ["email": "nobody@example.com", "create_user": false])
            #expect(refused.status == 200 && refused.text == "{}")
            #expect(try server.mailCount(to: "nobody@example.com") == 0)
            let created = try await server.request(.POST, "/otp", json: ["email": "new@example.com", "data": ["plan": "free"]])
            #expect(created.status == 200 && created.text == "{}")
            let code = try server.emailCode(to: "new@example.com")
            let session = try await server.request(.POST, "/verify", json: ["type": "email", "email": "new@example.com", "token": code])
            let user = try #require(session["user"] as? [String: Any], "\(session.text)")
            #expect((user["user_metadata"] as? [String: Any])?["plan"] as? String == "free")
            #expect(user["email_confirmed_at"] is String)
        }
    }

    @Test("phone sign-in answers GoTrue's phone_provider_disabled; bad input is 400")
    func phoneAndBadInput() async throws {
        try await TestServer.with { server in
            try await server.request(.POST, "/otp", json: ["phone": "+15555550100"]).expectError(400, "phone_provider_disabled")
            try await server.request(.POST, "/otp", json: [:]).expectError(400, "validation_failed")
            try await server.request(.POST, "/otp", json: ["email": "a@example.com", "phone": "+15555550100"]).expectError(400, "validation_failed")
            try await server.request(.POST, "/signup", json: ["phone": "+15555550100", "password": "correct horse battery"])
                .expectError(400, "phone_provider_disabled")
        }
    }

    @Test("/invite is for the service role only; the invitee follows the link, sets a password and signs in")
    func invite() async throws {
        try await TestServer.with(configure: { $0.autoconfirm = false }) { server in
            let admin = server.server.serviceRoleKey
            try await server.request(.POST, "/invite", json: ["email": "guest@example.com"], bearer: server.server.anonKey).expectError(
                403, "not_admin")
            try await server.request(.POST, "/invite", json: ["email": "guest@example.com"]).expectError(401, "no_authorization")
            let invited = try await server.request(.POST, "/invite", json: ["email": "Guest@Example.com", "data": ["team": "blue"]], bearer: admin)
            #expect(invited.status == 200, "\(invited.text)")
            #expect(invited["invited_at"] is String)
            let token = try server.linkToken(to: "guest@example.com", type: "invite")
            let session = try #require(TestSession(try await server.request(.POST, "/verify", json: ["type": "invite", "token_hash": token])))
            #expect(try await server.request(.PUT, "/user", json: ["password": "a chosen password"], bearer: session.accessToken).status == 200)
            #expect(try await server.signIn("guest@example.com", "a chosen password").status == 200)
            try await server.request(.POST, "/invite", json: ["email": "guest@example.com"], bearer: admin).expectError(422, "email_exists")
            #expect(try await server.auditActions().contains("user_invited"))
        }
    }

    @Test("generate_link answers link, code and token for each type, mails nothing, and each works")
    func generateLink() async throws {
        try await TestServer.with(configure: { $0.autoconfirm = false }) { server in
            let admin = server.server.serviceRoleKey
            try await server.request(
                .POST, "/admin/generate_link", json: ["type": "signup", "email": "x@example.com"], bearer: server.server.anonKey
            )
            .expectError(403, "not_admin")
            let signup = try await server.request(
                .POST, "/admin/generate_link", json: ["type": "signup", "email": "gen@example.com", "password": "correct horse battery"],
                bearer: admin)
            #expect(signup.status == 200, "\(signup.text)")
            #expect(signup["verification_type"] as? String == "signup")
            #expect((signup["action_link"] as? String)?.contains("/verify?token=") == true)
            #expect(signup["email"] as? String == "gen@example.com")
            #expect(try server.mailCount(to: "gen@example.com") == 0)
            let otp = try #require(signup["email_otp"] as? String)
            #expect(
                TestSession(try await server.request(.POST, "/verify", json: ["type": "signup", "email": "gen@example.com", "token": otp])) != nil)

            for type in ["magiclink", "recovery"] {
                let generated = try await server.request(
                    .POST, "/admin/generate_link", json: ["type": type, "email": "gen@example.com"], bearer: admin)
                let hashed = try #require(generated["hashed_token"] as? String, "\(generated.text)")
                #expect(TestSession(try await server.request(.POST, "/verify", json: ["type": type, "token_hash": hashed])) != nil, "\(type)")
            }
            let change = try await server.request(
                .POST, "/admin/generate_link", json: ["type": "email_change_new", "email": "gen@example.com", "new_email": "gen2@example.com"],
                bearer: admin)
            let changeOTP = try #require(change["email_otp"] as? String, "\(change.text)")
            let changed = try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "gen2@example.com", "token": changeOTP])
            #expect((changed["user"] as? [String: Any])?["email"] as? String == "gen2@example.com")

            let magicForNew = try await server.request(
                .POST, "/admin/generate_link", json: ["type": "magiclink", "email": "fresh@example.com"], bearer: admin)
            #expect(magicForNew["verification_type"] as? String == "signup", "a magic link for no account is a sign-up link")
            try await server.request(.POST, "/admin/generate_link", json: ["type": "recovery", "email": "none@example.com"], bearer: admin)
                .expectError(404, "user_not_found")
            try await server.request(
                .POST, "/admin/generate_link", json: ["type": "signup", "email": "gen2@example.com", "password": "x password"], bearer: admin
            )
            .expectError(422, "email_exists")
            try await server.request(.POST, "/admin/generate_link", json: ["type": "bogus", "email": "gen2@example.com"], bearer: admin)
                .expectError(400, "validation_failed")
        }
    }
}
