import Foundation
import GRDB
import Testing

@testable import LatchkeyServer

/// `GET/PUT /user` and the public-profile rule of `GET/PUT /profiles/{id}`.
@Suite("User and profiles")
struct UserRoutesTests {
    @Test("GET /user answers the token's user; PUT merges metadata and null removes a key")
    func getAndUpdateMetadata() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("meta@example.com", data: ["theme": "dark", "plan": "free"])
            let user = try await server.request(.GET, "/user", bearer: session.accessToken)
            #expect(user.status == 200)
            #expect(user["id"] as? String == session.userID)
            let update = try await server.request(
                .PUT, "/user", rawBody: #"{"data": {"plan": "pro", "theme": null, "age": 30}}"#, bearer: session.accessToken)
            #expect(update.status == 200)
            let metadata = try #require(update["user_metadata"] as? [String: Any])
            #expect(metadata["plan"] as? String == "pro")
            #expect(metadata["theme"] == nil)
            #expect(metadata["age"] as? Int == 30)
        }
    }

    @Test("GET /user answers anew whenever the user, a factor or an identity changes, also when another connection changes it")
    func answerFollowsChanges() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("again@example.com", data: ["theme": "dark"])
            let first = try await server.request(.GET, "/user", bearer: session.accessToken)
            let second = try await server.request(.GET, "/user", bearer: session.accessToken)
            #expect(first.status == 200 && second.text == first.text)
            _ = try await server.request(.PUT, "/user", json: ["data": ["theme": "light"]], bearer: session.accessToken)
            let updated = try await server.request(.GET, "/user", bearer: session.accessToken)
            #expect((updated["user_metadata"] as? [String: Any])?["theme"] as? String == "light")
            // A plain SQLite connection, as another process (an import, a hand-run `sqlite3`) would.
            let path = server.directory.appendingPathComponent("latchkey.sqlite").path
            let plain = try DatabaseQueue(path: path)
            try await plain.write { db in
                try db.execute(sql: #"UPDATE users SET user_metadata = '{"theme":"sepia"}' WHERE id = ?"#, arguments: [session.userID])
            }
            try plain.close()
            let elsewhere = try await server.request(.GET, "/user", bearer: session.accessToken)
            #expect((elsewhere["user_metadata"] as? [String: Any])?["theme"] as? String == "sepia")
            #expect(elsewhere["factors"] == nil)
            let enrolled = try await server.request(
                .POST, "/factors", json: ["factor_type": "totp", "friendly_name": "phone"], bearer: session.accessToken)
            #expect(enrolled.status == 200)
            let withFactor = try await server.request(.GET, "/user", bearer: session.accessToken)
            let factors = try #require(withFactor["factors"] as? [[String: Any]])
            #expect(factors.map { $0["id"] as? String } == [enrolled["id"] as? String])
        }
    }

    @Test("changing the password keeps this session, ends the others, and the new password signs in")
    func passwordChange() async throws {
        try await TestServer.with { server in
            let current = try await server.signUp("pw@example.com", "old password 123")
            let other = try #require(TestSession(try await server.signIn("pw@example.com", "old password 123")))
            let weak = try await server.request(.PUT, "/user", json: ["password": "short"], bearer: current.accessToken)
            #expect(weak.status == 422)
            let change = try await server.request(.PUT, "/user", json: ["password": "new password 456"], bearer: current.accessToken)
            #expect(change.status == 200)
            #expect(try await server.request(.GET, "/user", bearer: current.accessToken).status == 200)
            #expect(try await server.request(.GET, "/user", bearer: other.accessToken).status == 403)
            #expect(try await server.signIn("pw@example.com", "old password 123").status == 400)
            #expect(try await server.signIn("pw@example.com", "new password 456").status == 200)
        }
    }

    @Test("changing email with confirmation: pending until the link to the new address is followed")
    func emailChange() async throws {
        try await TestServer.with(configure: { $0.autoconfirm = false }) { server in
            // Create a confirmed user through the admin API, since sign-ups need confirmation here.
            let create = try await server.request(
                .POST, "/admin/users", json: ["email": "old@example.com", "password": "correct horse battery", "email_confirm": true],
                bearer: server.server.serviceRoleKey)
            #expect(create.status == 200)
            let session = try #require(TestSession(try await server.signIn("old@example.com")))
            let taken = try await server.request(
                .POST, "/admin/users", json: ["email": "taken2@example.com", "password": "correct horse battery"],
                bearer: server.server.serviceRoleKey)
            #expect(taken.status == 200)
            #expect(
                try await server.request(.PUT, "/user", json: ["email": "taken2@example.com"], bearer: session.accessToken).errorCode
                    == "email_exists")
            let change = try await server.request(.PUT, "/user", json: ["email": "New@Example.com"], bearer: session.accessToken)
            #expect(change.status == 200)
            #expect(change["email"] as? String == "old@example.com")
            #expect(change["new_email"] as? String == "new@example.com")
            // Secure email change: the link to the new address, then the one to the current address.
            let token = try server.linkToken(to: "new@example.com", type: "email_change")
            let half = try await server.request(.POST, "/verify", json: ["type": "email_change", "token_hash": token])
            #expect(half.status == 200 && half["msg"] != nil, "\(half.text)")
            let current = try server.linkToken(to: "old@example.com", type: "email_change")
            let verified = try await server.request(.POST, "/verify", json: ["type": "email_change", "token_hash": current])
            #expect(verified.status == 200)
            #expect((verified["user"] as? [String: Any])?["email"] as? String == "new@example.com")
            #expect(try await server.signIn("new@example.com").status == 200)
        }
    }

    @Test("under autoconfirm a permanent user's new address still waits for its confirmations; an anonymous user's first one is taken at once")
    func emailChangeUnderAutoconfirm() async throws {
        try await TestServer.with(configure: {
            $0.autoconfirm = true
            $0.enableAnonymousUsers = true
        }) { server in
            // A stolen access token alone must not move the account to another address.
            let session = try await server.signUp("owner@example.com")
            let change = try await server.request(.PUT, "/user", json: ["email": "thief@example.com"], bearer: session.accessToken)
            #expect(change.status == 200, "\(change.text)")
            #expect(change["email"] as? String == "owner@example.com" && change["new_email"] as? String == "thief@example.com")
            let stored = try await server.request(.GET, "/user", bearer: session.accessToken)
            #expect(stored["email"] as? String == "owner@example.com")
            #expect(try server.linkToken(to: "owner@example.com", type: "email_change").isEmpty == false, "the current address is asked")
            #expect(try await server.signIn("thief@example.com").status == 400)
            #expect(try await server.signIn("owner@example.com").status == 200)

            let anonymous = try await server.request(.POST, "/signup", json: [:])
            let guest = try #require(TestSession(anonymous), "\(anonymous.text)")
            let upgraded = try await server.request(.PUT, "/user", json: ["email": "guest@example.com"], bearer: guest.accessToken)
            #expect(upgraded.status == 200, "\(upgraded.text)")
            #expect(upgraded["email"] as? String == "guest@example.com" && upgraded["is_anonymous"] as? Bool == false)
        }
    }

    @Test("any signed-in user reads any profile; only the owner writes it; anonymous readers are refused")
    func profileRule() async throws {
        try await TestServer.with { server in
            let alice = try await server.signUp(
                "alice@example.com", data: ["display_name": "Alice", "avatar_url": "https://img.example.com/a.png", "secret_note": "private"])
            let bob = try await server.signUp("bob@example.com")
            let read = try await server.request(.GET, "/profiles/\(alice.userID)", bearer: bob.accessToken)
            #expect(read.status == 200)
            #expect(read["display_name"] as? String == "Alice")
            #expect(read["avatar_url"] as? String == "https://img.example.com/a.png")
            #expect(read["secret_note"] == nil, "a profile exposes only public fields")
            #expect(read["email"] == nil)

            let hijack = try await server.request(.PUT, "/profiles/\(alice.userID)", json: ["display_name": "Mallory"], bearer: bob.accessToken)
            #expect(hijack.status == 403)
            let after = try await server.request(.GET, "/profiles/\(alice.userID)", bearer: alice.accessToken)
            #expect(after["display_name"] as? String == "Alice", "nothing was written")

            let own = try await server.request(
                .PUT, "/profiles/\(bob.userID)", json: ["display_name": " Bob ", "avatar_url": "https://img.example.com/b.png"],
                bearer: bob.accessToken)
            #expect(own.status == 200)
            #expect(own["display_name"] as? String == "Bob")
            let badAvatar = try await server.request(
                .PUT, "/profiles/\(bob.userID)", json: ["avatar_url": "javascript:alert(1)"], bearer: bob.accessToken)
            #expect(badAvatar.status == 400)

            #expect(try await server.request(.GET, "/profiles/\(alice.userID)").status == 401)
            #expect(try await server.request(.GET, "/profiles/\(UUID().uuidString)", bearer: bob.accessToken).status == 404)
            #expect(try await server.request(.GET, "/profiles/not-a-uuid", bearer: bob.accessToken).status == 404)
        }
    }
}
