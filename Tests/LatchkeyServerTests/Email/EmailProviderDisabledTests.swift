import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// `GOTRUE_EXTERNAL_EMAIL_ENABLED=false`: `/settings` says email is off and every email
/// sign-up and sign-in is refused with GoTrue's `email_provider_disabled` (its status differs
/// by endpoint, as GoTrue's); administrators still create users.
@Suite("Email sign-in off")
struct EmailProviderDisabledTests {
    @Test("settings report email off; sign-up 400, password sign-in 422, /otp and /magiclink 422, /recover and /resend 400")
    func refused() async throws {
        try await TestServer.with(configure: {
            $0.emailEnabled = false
            $0.autoconfirm = true
            $0.enableAnonymousUsers = true
        }) { server in
            let settings = try await server.request(.GET, "/settings")
            #expect((settings["external"] as? [String: Any])?["email"] as? Bool == false, "\(settings.text)")

            let signUp = try await server.request(.POST, "/signup", json: ["email": "off@example.com", "password": "correct horse battery"])
            signUp.expectError(400, "email_provider_disabled")
            #expect(signUp["msg"] as? String == "Email signups are disabled")

            // An account an administrator made cannot sign in with its address either.
            let created = try await server.request(
                .POST, "/admin/users", json: ["email": "admin-made@example.com", "password": "correct horse battery", "email_confirm": true],
                bearer: server.server.serviceRoleKey)
            #expect(created.status == 200, "\(created.text)")
            let signIn = try await server.request(
                .POST, "/token?grant_type=password", json: ["email": "admin-made@example.com", "password": "correct horse battery"])
            signIn.expectError(422, "email_provider_disabled")
            #expect(signIn["msg"] as? String == "Email logins are disabled")

            for path in ["/otp", "/magiclink"] {
                let otp = try await server.request(.POST, path, json: ["email": "admin-made@example.com"])
                otp.expectError(422, "email_provider_disabled")
            }
            try await server.request(.POST, "/recover", json: ["email": "admin-made@example.com"]).expectError(400, "email_provider_disabled")
            try await server.request(.POST, "/resend", json: ["type": "signup", "email": "admin-made@example.com"])
                .expectError(400, "email_provider_disabled")
            // Anonymous sign-ins do not use the email provider.
            #expect(try await server.request(.POST, "/signup", json: [:]).status == 200)
        }
    }

    @Test("on by default: /settings reports email on and sign-up works")
    func onByDefault() async throws {
        try await TestServer.with(configure: { $0.autoconfirm = true }) { server in
            let settings = try await server.request(.GET, "/settings")
            #expect((settings["external"] as? [String: Any])?["email"] as? Bool == true)
            _ = try await server.signUp("on@example.com")
        }
    }
}
