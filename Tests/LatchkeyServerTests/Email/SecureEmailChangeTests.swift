import Foundation
import Testing

@testable import LatchkeyServer

/// Secure email change (GoTrue's `MAILER_SECURE_EMAIL_CHANGE_ENABLED`, on by default): `PUT /user
/// {email}` mails the current and the new address each a link and a code, and the address
/// changes only once both are redeemed.
@Suite("Secure email change")
struct SecureEmailChangeTests {
    static let awaiting = "Confirmation link accepted. Please proceed to confirm link sent to the other email"

    /// A confirmed account of `email`, signed in.
    func confirmedAccount(_ server: TestServer, _ email: String) async throws -> TestSession {
        let response = try await server.request(.POST, "/signup", json: ["email": email, "password": "correct horse battery"])
        #expect(response.status == 200, "\(response.text)")
        let verified = try await server.request(
            .POST, "/verify", json: ["type": "signup", "email": email, "token": try server.emailCode(to: email)])
        return try #require(TestSession(verified), "\(verified.text)")
    }

    func email(of session: TestSession, _ server: TestServer) async throws -> String? {
        try await server.request(.GET, "/user", bearer: session.accessToken)["email"] as? String
    }

    @Test("both codes are needed, in either order of the two; each only with its own address, once", arguments: StoreKind.available)
    func bothCodesNeeded(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await TestServer.with(store: store, configure: { $0.autoconfirm = false }) { server in
                let session = try await confirmedAccount(server, "old@example.com")
                let mailsBefore = try server.mailCount(to: "old@example.com")
                let update = try await server.request(.PUT, "/user", json: ["email": "new@example.com"], bearer: session.accessToken)
                #expect(update.status == 200, "\(update.text)")
                #expect(update["new_email"] as? String == "new@example.com")
                #expect(try server.mailCount(to: "old@example.com") == mailsBefore + 1, "a mail to the current address")
                #expect(try server.mailCount(to: "new@example.com") == 1, "a mail to the new address")
                let currentCode = try server.emailCode(to: "old@example.com")
                let newCode = try server.emailCode(to: "new@example.com")

                // Each code is bound to the address it was mailed to.
                try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "old@example.com", "token": newCode])
                    .expectError(403, "otp_expired")
                try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "new@example.com", "token": currentCode])
                    .expectError(403, "otp_expired")

                // The new address alone does not change it.
                let first = try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "new@example.com", "token": newCode])
                #expect(first.status == 200, "\(first.text)")
                #expect(first["msg"] as? String == Self.awaiting)
                #expect(first["code"] as? String == "200")
                #expect(first["access_token"] == nil, "no session for half a change")
                #expect(try await email(of: session, server) == "old@example.com")
                try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "new@example.com", "token": newCode])
                    .expectError(403, "otp_expired")

                let second = try await server.request(
                    .POST, "/verify", json: ["type": "email_change", "email": "old@example.com", "token": currentCode])
                let changed = try #require(TestSession(second), "\(second.text)")
                #expect(changed.email == "new@example.com")
                #expect(try await email(of: session, server) == "new@example.com")
                try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "old@example.com", "token": currentCode])
                    .expectError(403, "otp_expired")
                #expect(try await server.signIn("new@example.com").status == 200)
            }
        }
    }

    @Test("both links are needed; the first link redirects with GoTrue's message and no session, the token_hash forms too")
    func bothLinksNeeded() async throws {
        try await TestServer.with(configure: {
            $0.autoconfirm = false
            $0.siteURL = "https://app.example.com"
        }) { server in
            let session = try await confirmedAccount(server, "links@example.com")
            #expect(try await server.request(.PUT, "/user", json: ["email": "moved@example.com"], bearer: session.accessToken).status == 200)
            let landing = try await server.server.followLink(to: "links@example.com", type: "email_change")
            let fragment = try #require(landing.fragment)
            #expect(fragment.contains("message=Confirmation%20link%20accepted") || fragment.contains("message=Confirmation+link+accepted"))
            #expect(!fragment.contains("access_token"), "\(landing)")
            #expect(try await email(of: session, server) == "links@example.com")
            let newLink = try server.linkToken(to: "moved@example.com", type: "email_change")
            let verified = try await server.request(.POST, "/verify", json: ["type": "email_change", "token_hash": newLink])
            #expect(TestSession(verified)?.email == "moved@example.com", "\(verified.text)")

            // Again by token_hash only, the current address's link last.
            #expect(try await server.request(.PUT, "/user", json: ["email": "third@example.com"], bearer: session.accessToken).status == 200)
            let toCurrent = try server.linkToken(to: "moved@example.com", type: "email_change")
            let toNew = try server.linkToken(to: "third@example.com", type: "email_change")
            #expect(
                try await server.request(.POST, "/verify", json: ["type": "email_change", "token_hash": toNew])["msg"] as? String == Self.awaiting)
            try await server.request(.POST, "/verify", json: ["type": "email_change", "token_hash": toNew]).expectError(403, "otp_expired")
            let last = try await server.request(.POST, "/verify", json: ["type": "email_change", "token_hash": toCurrent])
            #expect(TestSession(last)?.email == "third@example.com", "\(last.text)")
        }
    }

    @Test("an expired code confirms nothing, and a new request replaces both codes")
    func expiredCode() async throws {
        try await TestServer.with(configure: {
            $0.autoconfirm = false
            $0.emailCodeTTL = 600
        }) { server in
            let session = try await confirmedAccount(server, "slow@example.com")
            #expect(try await server.request(.PUT, "/user", json: ["email": "later@example.com"], bearer: session.accessToken).status == 200)
            let staleCurrent = try server.emailCode(to: "slow@example.com")
            let staleNew = try server.emailCode(to: "later@example.com")
            server.clock.advance(by: 601)
            try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "later@example.com", "token": staleNew])
                .expectError(403, "otp_expired")
            #expect(try await email(of: session, server) == "slow@example.com")

            #expect(try await server.request(.PUT, "/user", json: ["email": "later@example.com"], bearer: session.accessToken).status == 200)
            try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "slow@example.com", "token": staleCurrent])
                .expectError(403, "otp_expired")
            let newCode = try server.emailCode(to: "later@example.com")
            #expect(
                try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "later@example.com", "token": newCode])[
                    "msg"] as? String == Self.awaiting)
            let currentCode = try server.emailCode(to: "slow@example.com")
            let done = try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "slow@example.com", "token": currentCode])
            #expect(TestSession(done)?.email == "later@example.com", "\(done.text)")
        }
    }

    @Test("turned off, the new address's code alone changes it and the current address gets no mail")
    func offKeepsOneConfirmation() async throws {
        try await TestServer.with(configure: {
            $0.autoconfirm = false
            $0.secureEmailChange = false
        }) { server in
            let session = try await confirmedAccount(server, "single@example.com")
            let mailsBefore = try server.mailCount(to: "single@example.com")
            #expect(try await server.request(.PUT, "/user", json: ["email": "alone@example.com"], bearer: session.accessToken).status == 200)
            #expect(try server.mailCount(to: "single@example.com") == mailsBefore)
            let code = try server.emailCode(to: "alone@example.com")
            let changed = try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "alone@example.com", "token": code])
            #expect(TestSession(changed)?.email == "alone@example.com", "\(changed.text)")
            try await server.request(
                .POST, "/admin/generate_link", json: ["type": "email_change_current", "email": "alone@example.com", "new_email": "y@example.com"],
                bearer: server.server.serviceRoleKey
            )
            .expectError(400, "validation_failed")
        }
    }

    @Test("/resend of an email change mails both addresses again")
    func resendMailsBoth() async throws {
        try await TestServer.with(configure: { $0.autoconfirm = false }) { server in
            let session = try await confirmedAccount(server, "again@example.com")
            #expect(try await server.request(.PUT, "/user", json: ["email": "resent@example.com"], bearer: session.accessToken).status == 200)
            let before = try server.mailCount(to: "again@example.com")
            #expect(try await server.request(.POST, "/resend", json: ["type": "email_change", "email": "again@example.com"]).status == 200)
            #expect(try server.mailCount(to: "again@example.com") == before + 1)
            #expect(try server.mailCount(to: "resent@example.com") == 2)
        }
    }

    @Test("generate_link gives the current address's and the new address's link; both are needed")
    func generateLinkBothTypes() async throws {
        try await TestServer.with(configure: { $0.autoconfirm = false }) { server in
            let admin = server.server.serviceRoleKey
            let session = try await confirmedAccount(server, "admin-change@example.com")
            let current = try await server.request(
                .POST, "/admin/generate_link",
                json: ["type": "email_change_current", "email": "admin-change@example.com", "new_email": "admin-new@example.com"], bearer: admin)
            #expect(current.status == 200, "\(current.text)")
            #expect(current["verification_type"] as? String == "email_change_current")
            #expect((current["action_link"] as? String)?.contains("type=email_change") == true)
            #expect(current["new_email"] as? String == "admin-new@example.com")
            let new = try await server.request(
                .POST, "/admin/generate_link",
                json: ["type": "email_change_new", "email": "admin-change@example.com", "new_email": "admin-new@example.com"], bearer: admin)
            #expect(new.status == 200, "\(new.text)")
            #expect(try server.mailCount(to: "admin-new@example.com") == 0, "generate_link mails nothing")
            let currentOTP = try #require(current["email_otp"] as? String)
            let newHash = try #require(new["hashed_token"] as? String)
            // The current address's code is bound to it, not to the new one.
            try await server.request(
                .POST, "/verify", json: ["type": "email_change", "email": "admin-new@example.com", "token": currentOTP]
            )
            .expectError(403, "otp_expired")
            #expect(
                try await server.request(.POST, "/verify", json: ["type": "email_change", "token_hash": newHash])["msg"] as? String == Self.awaiting)
            let done = try await server.request(
                .POST, "/verify", json: ["type": "email_change", "email": "admin-change@example.com", "token": currentOTP])
            #expect(TestSession(done)?.email == "admin-new@example.com", "\(done.text)")
            #expect(try await email(of: session, server) == "admin-new@example.com")
        }
    }
}
