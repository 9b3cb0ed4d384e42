import Foundation
import Testing

@testable import LatchkeyServer

/// Anonymous sign-ins (`POST /signup` with no address) and `GET /reauthenticate`.
@Suite("Anonymous users and reauthentication")
struct AnonymousAndReauthenticationTests {
    @Test("anonymous sign-in is off unless enabled")
    func anonymousDisabled() async throws {
        try await TestServer.with { server in
            try await server.request(.POST, "/signup", json: [:]).expectError(422, "anonymous_provider_disabled")
        }
    }

    @Test("an anonymous user signs in, cannot set a password alone, and becomes permanent with a confirmed address")
    func anonymousUpgrade() async throws {
        try await TestServer.with(configure: {
            $0.enableAnonymousUsers = true
            $0.autoconfirm = false
        }) { server in
            let signedIn = try await server.request(.POST, "/signup", json: ["data": ["theme": "dark"]])
            let session = try #require(TestSession(signedIn), "\(signedIn.text)")
            let user = try #require(signedIn["user"] as? [String: Any])
            #expect(user["is_anonymous"] as? Bool == true)
            #expect(user["email"] as? String == "")
            #expect(try Self.claims(session.accessToken)["is_anonymous"] as? Bool == true)
            #expect(try Self.claims(session.accessToken)["role"] as? String == "authenticated")
            try await server.request(.PUT, "/user", json: ["password": "a real password"], bearer: session.accessToken)
                .expectError(422, "validation_failed")
            // A second anonymous user does not collide with the first (no address is unique).
            #expect(TestSession(try await server.request(.POST, "/signup", json: [:])) != nil)

            let added = try await server.request(
                .PUT, "/user", json: ["email": "real@example.com", "password": "a real password"], bearer: session.accessToken)
            #expect(added.status == 200, "\(added.text)")
            let code = try server.emailCode(to: "real@example.com")
            let confirmed = try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "real@example.com", "token": code])
            let permanent = try #require(TestSession(confirmed), "\(confirmed.text)")
            #expect((confirmed["user"] as? [String: Any])?["is_anonymous"] as? Bool == false)
            #expect(try Self.claims(permanent.accessToken)["is_anonymous"] as? Bool == false)
            #expect(try await server.signIn("real@example.com", "a real password").status == 200)
            #expect(permanent.userID == session.userID, "the same user, now permanent")
        }
    }

    @Test("with secure password change, an old session needs the mailed nonce; wrong and reused nonces are refused")
    func reauthentication() async throws {
        try await TestServer.with(configure: { $0.securePasswordChange = true }) { server in
            let session = try await server.signUp("careful@example.com")
            #expect(
                try await server.request(.PUT, "/user", json: ["password": "fresh session ok"], bearer: session.accessToken).status == 200,
                "a fresh session needs no nonce")
            server.clock.advance(by: 24 * 3600 + 1)
            let refreshed = try #require(TestSession(try await server.refresh(session.refreshToken)))
            try await server.request(.PUT, "/user", json: ["password": "second new password"], bearer: refreshed.accessToken)
                .expectError(400, "reauthentication_needed")
            #expect(try await server.request(.GET, "/reauthenticate", bearer: refreshed.accessToken).status == 200)
            let nonce = try server.emailCode(to: "careful@example.com")
            let wrong = nonce == "000000" ? "000001" : "000000"
            try await server.request(.PUT, "/user", json: ["password": "second new password", "nonce": wrong], bearer: refreshed.accessToken)
                .expectError(422, "reauthentication_not_valid")
            #expect(
                try await server.request(.PUT, "/user", json: ["password": "second new password", "nonce": nonce], bearer: refreshed.accessToken)
                    .status == 200)
            try await server.request(.PUT, "/user", json: ["password": "third new password", "nonce": nonce], bearer: refreshed.accessToken)
                .expectError(422, "reauthentication_not_valid")
            try await server.request(.GET, "/reauthenticate").expectError(401, "no_authorization")
        }
    }

    static func claims(_ jwt: String) throws -> [String: Any] {
        var part = String(jwt.split(separator: ".")[1]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while part.count % 4 != 0 { part += "=" }
        return try JSONSerialization.jsonObject(with: Data(base64Encoded: part)!) as? [String: Any] ?? [:]
    }
}
