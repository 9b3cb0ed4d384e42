import Foundation
import Testing

@testable import LatchkeyServer

/// `DELETE /user` with `--allow-self-deletion`: a signed-in user deletes their account after a
/// recent reauthentication, against the real server.
@Suite("Deleting one's own account")
struct AccountDeletionTests {
    static func allow(_ configuration: inout ServerConfiguration) {
        configuration.allowSelfDeletion = true
        configuration.rateLimits.mfaRequestsPerIP.count = 1000
    }

    @Test("off by default: DELETE /user is refused, and the account stays")
    func offByDefault() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("keep@example.com")
            try await server.request(.DELETE, "/user", json: [:], bearer: session.accessToken).expectError(403, "self_deletion_disabled")
            #expect(try await server.request(.GET, "/user", bearer: session.accessToken).status == 200)
        }
    }

    @Test("the access token alone cannot delete the account; a wrong nonce neither; the mailed nonce does, once")
    func needsTheNonce() async throws {
        try await TestServer.with(configure: Self.allow) { server in
            let session = try await server.signUp("leaving@example.com")
            try await server.request(.DELETE, "/user", bearer: session.accessToken).expectError(400, "reauthentication_needed")
            try await server.request(.DELETE, "/user", json: [:], bearer: session.accessToken).expectError(400, "reauthentication_needed")
            #expect(try await server.request(.GET, "/reauthenticate", bearer: session.accessToken).status == 200)
            let nonce = try server.emailCode(to: "leaving@example.com")
            let wrong = nonce == "000000" ? "000001" : "000000"
            try await server.request(.DELETE, "/user", json: ["nonce": wrong], bearer: session.accessToken)
                .expectError(422, "reauthentication_not_valid")
            #expect(try await server.request(.GET, "/user", bearer: session.accessToken).status == 200, "still there")

            let deleted = try await server.request(.DELETE, "/user", json: ["nonce": nonce], bearer: session.accessToken)
            #expect(deleted.status == 200, "\(deleted.text)")

            // Everything is gone: the token, the refresh token, the password.
            #expect(try await server.request(.GET, "/user", bearer: session.accessToken).status == 403)
            #expect(try await server.refresh(session.refreshToken).status >= 400)
            try await server.signIn("leaving@example.com").expectError(400, "invalid_credentials")
            #expect(try await server.auditActions().first == "user_deleted")
            // The notice, mailed to the address the account had, carries no code or link.
            let notice = try #require(try server.outbox().last)
            #expect(notice.contains("To: leaving@example.com"))
            #expect(notice.contains("Your account was deleted"))
            #expect(!notice.contains(nonce))
            // The address is free again.
            _ = try await server.signUp("leaving@example.com")
        }
    }

    @Test("another user's nonce does not delete this account")
    func nonceOfAnotherUser() async throws {
        try await TestServer.with(configure: Self.allow) { server in
            let victim = try await server.signUp("victim@example.com")
            let attacker = try await server.signUp("attacker@example.com")
            #expect(try await server.request(.GET, "/reauthenticate", bearer: attacker.accessToken).status == 200)
            let nonce = try server.emailCode(to: "attacker@example.com")
            try await server.request(.DELETE, "/user", json: ["nonce": nonce], bearer: victim.accessToken)
                .expectError(422, "reauthentication_not_valid")
            #expect(try await server.request(.GET, "/user", bearer: victim.accessToken).status == 200)
        }
    }

    @Test("with a verified factor: an aal1 session is refused, even with a nonce; a freshly verified aal2 session deletes, factors included")
    func needsAAL2WithAFactor() async throws {
        try await TestServer.with(configure: Self.allow) { server in
            let session = try await server.signUp("mfa@example.com")
            let (factor, raised) = try await MFATests.enrollAndVerify(server, session)
            let aal1 = try #require(TestSession(try await server.signIn("mfa@example.com")))
            #expect(try await server.request(.GET, "/reauthenticate", bearer: aal1.accessToken).status == 200)
            let nonce = try server.emailCode(to: "mfa@example.com")
            try await server.request(.DELETE, "/user", json: ["nonce": nonce], bearer: aal1.accessToken)
                .expectError(401, "insufficient_aal")

            // aal2, but verified long ago: verify again first.
            server.clock.advance(by: 3600)
            let stale = try #require(TestSession(try await server.refresh(raised.refreshToken)))
            try await server.request(.DELETE, "/user", json: [:], bearer: stale.accessToken).expectError(401, "insufficient_aal")
            server.clock.advance(by: 30)
            let challenge = try await MFATests.challenge(server, stale.accessToken, factor.id)
            let again = try await MFATests.verify(
                server, stale.accessToken, factor.id, challenge: challenge, code: MFATests.code(factor.secret, server))
            let fresh = try #require(TestSession(again), "\(again.text)")
            let deleted = try await server.request(.DELETE, "/user", json: [:], bearer: fresh.accessToken)
            #expect(deleted.status == 200, "\(deleted.text)")
            #expect(try await server.request(.GET, "/user", bearer: aal1.accessToken).status == 403, "every session ended")
            let (status, _) = try await server.server.admin("GET", "admin/users/\(session.userID)/factors", json: nil)
            #expect(status == 404, "the user and their factors are gone")
        }
    }

    @Test("an anonymous user, who has no address for a nonce, deletes with the session")
    func anonymous() async throws {
        try await TestServer.with(configure: {
            Self.allow(&$0)
            $0.enableAnonymousUsers = true
        }) { server in
            let session = try #require(TestSession(try await server.request(.POST, "/signup", json: [:])))
            #expect(try await server.request(.DELETE, "/user", bearer: session.accessToken).status == 200)
            #expect(try await server.request(.GET, "/user", bearer: session.accessToken).status == 403)
        }
    }

    @Test("without a session: 401")
    func signedOut() async throws {
        try await TestServer.with(configure: Self.allow) { server in
            try await server.request(.DELETE, "/user").expectError(401, "no_authorization")
        }
    }
}
