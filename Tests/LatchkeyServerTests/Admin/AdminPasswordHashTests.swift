import Foundation
import HummingbirdBcrypt
import LatchkeyTesting
import Logging
import Testing

@testable import LatchkeyServer

/// `POST /admin/users` with GoTrue's `password_hash` and `id`: honoured, or refused with a 4xx;
/// never dropped.
@Suite("Admin API: password hashes and ids")
struct AdminPasswordHashTests {
    static let firebase = FirebaseScryptHashTests.publishedText
    /// A hash the server will not verify (argon2d, which GoTrue refuses too).
    static let argon2 = "$argon2d$v=19$m=16,t=2,p=1$c29tZXNhbHQ$ZmFrZWhhc2g"

    /// The stored hash of `id`, read from the server's own database.
    static func storedHash(_ server: TestServer, _ id: String) async throws -> String? {
        let store = try SQLiteAuthStore(path: server.directory.appendingPathComponent("latchkey.sqlite").path)
        let user = try await store.user(id: try #require(UUID(uuidString: id)))
        try await store.close()
        return user?.passwordHash
    }

    @Test("a Firebase scrypt hash and an id are kept; the password signs in and is re-hashed to bcrypt in the same write")
    func firebaseHashAndID() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            let id = UUID().uuidString.lowercased()
            let created = try await server.request(
                .POST, "/admin/users", json: ["id": id, "email": "fb@example.com", "password_hash": Self.firebase, "email_confirm": true],
                bearer: key)
            #expect(created.status == 200)
            #expect(created["id"] as? String == id)
            #expect(try await Self.storedHash(server, id) == Self.firebase)

            let wrong = try await server.signIn("fb@example.com", "user1passwor")
            #expect(wrong.status == 400 && wrong.errorCode == "invalid_credentials")
            #expect(try await Self.storedHash(server, id) == Self.firebase, "a wrong password changes nothing")

            let signedIn = try await server.signIn("fb@example.com", FirebaseScryptHashTests.published.password)
            #expect(signedIn.status == 200)
            #expect((signedIn["user"] as? [String: Any])?["id"] as? String == id)
            let rehashed = try #require(try await Self.storedHash(server, id))
            #expect(rehashed.hasPrefix("$2b$04$"), "re-hashed with the server's bcrypt cost")
            #expect(Bcrypt.verify(FirebaseScryptHashTests.published.password, hash: rehashed))
            #expect(try await server.signIn("fb@example.com", FirebaseScryptHashTests.published.password).status == 200)
            #expect(try await server.signIn("fb@example.com", "user1passwor").status == 400)
        }
    }

    @Test("bcrypt hashes of other systems ($2a$, $2y$, another cost) sign in")
    func bcryptHashes() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            let made = Bcrypt.hash("php password", cost: 5)
            for (index, hash) in ["$2y$" + made.dropFirst(4), "$2a$" + made.dropFirst(4), made].enumerated() {
                let email = "bcrypt\(index)@example.com"
                let created = try await server.request(
                    .POST, "/admin/users", json: ["email": email, "password_hash": hash, "email_confirm": true], bearer: key)
                #expect(created.status == 200, "\(hash.prefix(4))")
                #expect(try await server.signIn(email, "php password!").status == 400)
                #expect(try await server.signIn(email, "php password").status == 200, "\(hash.prefix(4))")
            }
        }
    }

    @Test("refusals: argon2d 422, an unreadable hash 400, hash with password 400, a bad or nil id 400, a taken id 422; nothing is created")
    func refusals() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            let taken = try await server.signUp("taken@example.com")
            let cases: [(body: [String: any Sendable], status: Int, code: String)] = [
                (["email": "a@example.com", "password_hash": Self.argon2], 422, "validation_failed"),
                (["email": "a@example.com", "password_hash": "not a hash"], 400, "validation_failed"),
                (["email": "a@example.com", "password_hash": "$fbscrypt$v=1,n=40,r=8,p=1$c2FsdA==$aGFzaA=="], 400, "validation_failed"),
                (["email": "a@example.com", "password_hash": Self.firebase, "password": "also a password"], 400, "validation_failed"),
                (["email": "a@example.com", "id": "firebase-uid-123"], 400, "validation_failed"),
                (["email": "a@example.com", "id": "00000000-0000-0000-0000-000000000000"], 400, "validation_failed"),
                (["email": "a@example.com", "id": taken.userID, "password_hash": Self.firebase], 422, "user_already_exists"),
            ]
            for (body, status, code) in cases {
                let response = try await server.request(.POST, "/admin/users", json: body, bearer: key)
                #expect(response.status == status, "\(body)")
                #expect(response.errorCode == code, "\(body)")
                #expect(!String(decoding: response.body, as: UTF8.self).contains("c29tZXNhbHQ"), "the answer never echoes the hash")
            }
            let list = try await server.request(.GET, "/admin/users", bearer: key)
            #expect((list["users"] as? [Any])?.count == 1, "only the signed-up user exists")
            #expect(try await server.signIn("taken@example.com").status == 200, "the taken id's user is untouched")
        }
    }

    @Test("only the service role may set a hash or an id: a user's token and the anon key are refused and nothing is created")
    func onlyServiceRole() async throws {
        try await TestServer.with { server in
            let user = try await server.signUp("plain@example.com")
            let id = UUID().uuidString.lowercased()
            let body: [String: any Sendable] = ["id": id, "email": "intruder@example.com", "password_hash": Self.firebase, "email_confirm": true]
            #expect(try await server.request(.POST, "/admin/users", json: body, bearer: user.accessToken).status == 403)
            #expect(try await server.request(.POST, "/admin/users", json: body, bearer: server.server.anonKey).status == 403)
            #expect(try await server.request(.POST, "/admin/users", json: body).status == 401)
            #expect(
                try await server.request(.PUT, "/admin/users/\(user.userID)", json: ["password_hash": Self.firebase], bearer: user.accessToken).status
                    == 403)
            #expect(try await server.signIn("intruder@example.com", FirebaseScryptHashTests.published.password).status == 400)
            #expect(try await server.request(.GET, "/admin/users/\(id)", bearer: server.server.serviceRoleKey).status == 404)
            #expect(try await server.signIn("plain@example.com").status == 200, "the user's password was not replaced")
        }
    }

    @Test("PUT: a new password_hash replaces the password and ends the user's sessions; the id cannot change")
    func update() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            let session = try await server.signUp("moving@example.com")
            let other = UUID().uuidString
            let renamed = try await server.request(.PUT, "/admin/users/\(session.userID)", json: ["id": other], bearer: key)
            #expect(renamed.status == 400 && renamed.errorCode == "validation_failed")
            #expect(try await server.request(.PUT, "/admin/users/\(session.userID)", json: ["id": session.userID], bearer: key).status == 200)
            #expect(try await server.request(.PUT, "/admin/users/\(session.userID)", json: ["password_hash": Self.argon2], bearer: key).status == 422)
            #expect(try await server.signIn("moving@example.com").status == 200, "a refused hash changes nothing")
            let updated = try await server.request(.PUT, "/admin/users/\(session.userID)", json: ["password_hash": Self.firebase], bearer: key)
            #expect(updated.status == 200)
            #expect(try await server.refresh(session.refreshToken).status == 400, "the user's sessions ended")
            #expect(try await server.signIn("moving@example.com").status == 400)
            #expect(try await server.signIn("moving@example.com", FirebaseScryptHashTests.published.password).status == 200)
        }
    }

    @Test("neither the hash nor the password reaches the logs")
    func nothingLogged() async throws {
        let capture = LogCapture()
        try await TestServer.with(logger: capture.logger(label: "latchkey")) { server in
            let key = server.server.serviceRoleKey
            _ = try await server.request(.POST, "/admin/users", json: ["email": "quiet@example.com", "password_hash": Self.firebase], bearer: key)
            _ = try await server.request(.POST, "/admin/users", json: ["email": "loud@example.com", "password_hash": Self.argon2], bearer: key)
            _ = try await server.signIn("quiet@example.com", FirebaseScryptHashTests.published.password)
            _ = try await server.signIn("quiet@example.com", "wrong guess 1")
            let lines = capture.lines
            #expect(lines.count > 2, "the requests were logged")
            let p = FirebaseScryptHashTests.published
            for secret in [p.hash, p.signerKey, p.salt, p.password, "wrong guess 1", "c29tZXNhbHQ", "ZmFrZWhhc2g"] {
                #expect(!lines.contains { $0.contains(secret) }, "a log line contains a secret")
            }
        }
    }
}
