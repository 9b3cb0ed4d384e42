import Foundation
import Testing

@testable import LatchkeyServer

/// `--require-current-password` (GoTrue's `SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD`) and
/// GoTrue's rule that a new password differs from the current one.
@Suite("Current password")
struct CurrentPasswordTests {
    static let password = "correct horse battery"

    @Test("with the rule on, a new password needs the right current one; none or a wrong one changes nothing")
    func required() async throws {
        try await TestServer.with(configure: { $0.requireCurrentPassword = true }) { server in
            let session = try await server.signUp("current@example.com")
            // The password policy is checked first, as GoTrue does.
            try await server.request(.PUT, "/user", json: ["password": "short"], bearer: session.accessToken).expectError(422, "weak_password")
            let missing = try await server.request(.PUT, "/user", json: ["password": "a new password 1"], bearer: session.accessToken)
            missing.expectError(400, "current_password_required")
            #expect(missing["msg"] as? String == "Current password required when setting new password.")
            try await server.request(
                .PUT, "/user", json: ["password": "a new password 1", "current_password": ""], bearer: session.accessToken
            )
            .expectError(400, "current_password_required")
            let wrong = try await server.request(
                .PUT, "/user", json: ["password": "a new password 1", "current_password": "not the password"], bearer: session.accessToken)
            wrong.expectError(400, "current_password_mismatch")
            #expect(!wrong.text.contains("not the password") && !wrong.text.contains("a new password 1"), "no password in the answer")
            #expect(try await server.signIn("current@example.com").status == 200, "the password is unchanged")
            #expect(try await server.signIn("current@example.com", "a new password 1").status == 400)

            let changed = try await server.request(
                .PUT, "/user", json: ["password": "a new password 1", "current_password": Self.password], bearer: session.accessToken)
            #expect(changed.status == 200, "\(changed.text)")
            #expect(try await server.signIn("current@example.com", "a new password 1").status == 200)
            // Metadata alone needs no password.
            #expect(try await server.request(.PUT, "/user", json: ["data": ["a": 1]], bearer: session.accessToken).status == 200)
        }
    }

    @Test("with the rule on, a session started by a recovery code sets a new password without the old one")
    func recoverySessionIsExempt() async throws {
        try await TestServer.with(configure: { $0.requireCurrentPassword = true }) { server in
            try await server.signUp("forgot-current@example.com")
            #expect(try await server.request(.POST, "/recover", json: ["email": "forgot-current@example.com"]).status == 200)
            let recovered = try #require(
                TestSession(
                    try await server.request(
                        .POST, "/verify",
                        json: [
                            "type": "recovery", "email": "forgot-current@example.com",
                            "token": try server.emailCode(to: "forgot-current@example.com"),
                        ]
                    )))
            let changed = try await server.request(.PUT, "/user", json: ["password": "recovered password 1"], bearer: recovered.accessToken)
            #expect(changed.status == 200, "\(changed.text)")
            // A password sign-in is not a recovery session: it needs the current password again.
            let signedIn = try #require(TestSession(try await server.signIn("forgot-current@example.com", "recovered password 1")))
            try await server.request(.PUT, "/user", json: ["password": "another password 2"], bearer: signedIn.accessToken)
                .expectError(400, "current_password_required")
        }
    }

    @Test("with the rule off, no current password is asked; the same password again is 422 same_password either way")
    func offAndSamePassword() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("same@example.com")
            let same = try await server.request(.PUT, "/user", json: ["password": Self.password], bearer: session.accessToken)
            same.expectError(422, "same_password")
            #expect(same["msg"] as? String == "New password should be different from the old password.")
            #expect(
                try await server.request(.PUT, "/user", json: ["password": "different password 1"], bearer: session.accessToken).status == 200)
        }
    }
}
