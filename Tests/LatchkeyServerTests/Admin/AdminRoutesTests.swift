import Foundation
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// `/admin/...`: user management for the service_role key, and nobody else.
@Suite("Admin API")
struct AdminRoutesTests {
    @Test("every admin endpoint refuses a user's token (403 not_admin) and a missing one (401)")
    func onlyServiceRole() async throws {
        try await TestServer.with { server in
            let user = try await server.signUp("plain@example.com")
            let endpoints: [(HTTPMethodProbe, String)] = [
                (.get, "/admin/users"), (.post, "/admin/users"), (.get, "/admin/users/\(user.userID)"),
                (.put, "/admin/users/\(user.userID)"), (.delete, "/admin/users/\(user.userID)"),
                (.post, "/admin/users/\(user.userID)/logout"), (.get, "/admin/audit"),
            ]
            for (method, path) in endpoints {
                let asUser = try await server.request(
                    method.nio, path, json: method == .get ? nil : ["email": "x@example.com"], bearer: user.accessToken)
                #expect(asUser.status == 403, "\(method) \(path)")
                #expect(asUser.errorCode == "not_admin", "\(method) \(path)")
                let anonymous = try await server.request(method.nio, path, json: method == .get ? nil : [:])
                #expect(anonymous.status == 401, "\(method) \(path)")
                let anonKey = try await server.request(method.nio, path, json: method == .get ? nil : [:], bearer: server.server.anonKey)
                #expect(anonKey.status == 403, "\(method) \(path) with the anon key")
            }
            #expect(try await server.request(.GET, "/user", bearer: user.accessToken).status == 200, "the user was not touched")
        }
    }

    @Test("create, list, read, update, delete a user")
    func crud() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            let created = try await server.request(
                .POST, "/admin/users",
                json: [
                    "email": "Made@Example.com", "password": "made password", "email_confirm": true, "user_metadata": ["display_name": "Made"],
                    "app_metadata": ["plan": "gold"],
                ],
                bearer: key)
            #expect(created.status == 200)
            let id = try #require(created["id"] as? String)
            #expect(created["email"] as? String == "made@example.com")
            #expect((created["app_metadata"] as? [String: Any])?["plan"] as? String == "gold")
            #expect(try await server.request(.POST, "/admin/users", json: ["email": "made@example.com"], bearer: key).errorCode == "email_exists")

            try await server.signUp("second@example.com")
            let list = try await server.request(.GET, "/admin/users?page=1&per_page=1", bearer: key)
            #expect(list.status == 200)
            #expect((list["users"] as? [Any])?.count == 1)
            #expect(list.headers.first(name: "X-Total-Count") == "2")
            #expect(try await server.request(.GET, "/admin/users?per_page=0", bearer: key).status == 400)

            #expect(try await server.request(.GET, "/admin/users/\(id)", bearer: key)["email"] as? String == "made@example.com")
            let updated = try await server.request(
                .PUT, "/admin/users/\(id)", json: ["user_metadata": ["display_name": "Renamed"], "password": "changed password"], bearer: key)
            #expect(updated.status == 200)
            #expect(try await server.signIn("made@example.com", "changed password").status == 200)
            #expect(try await server.request(.PUT, "/admin/users/\(id)", json: ["role": "service_role"], bearer: key).status == 400)

            let session = try #require(TestSession(try await server.signIn("made@example.com", "changed password")))
            #expect(try await server.request(.DELETE, "/admin/users/\(id)", bearer: key).status == 200)
            #expect(try await server.request(.GET, "/admin/users/\(id)", bearer: key).status == 404)
            #expect(try await server.request(.GET, "/user", bearer: session.accessToken).status == 403, "a deleted account's token is refused")
            #expect(try await server.refresh(session.refreshToken).status == 400)
            #expect(try await server.request(.DELETE, "/admin/users/\(id)", bearer: key).status == 404)
            #expect(try await server.auditActions().contains("user_deleted"))
        }
    }

    @Test("ban with ban_duration, then lift it with none")
    func banAndUnban() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            let session = try await server.signUp("ban@example.com")
            #expect(try await server.request(.PUT, "/admin/users/\(session.userID)", json: ["ban_duration": "forever"], bearer: key).status == 400)
            let ban = try await server.request(.PUT, "/admin/users/\(session.userID)", json: ["ban_duration": "1h30m"], bearer: key)
            #expect(ban["banned_until"] as? String != nil)
            let signIn = try await server.signIn("ban@example.com")
            signIn.expectError(400, "user_banned")
            #expect(try await server.request(.GET, "/user", bearer: session.accessToken).errorCode == "user_banned")
            server.clock.advance(by: 5401)
            #expect(try await server.signIn("ban@example.com").status == 200, "the ban expired")
            _ = try await server.request(.PUT, "/admin/users/\(session.userID)", json: ["ban_duration": "24h"], bearer: key)
            let lifted = try await server.request(.PUT, "/admin/users/\(session.userID)", json: ["ban_duration": "none"], bearer: key)
            #expect(lifted["banned_until"] == nil || lifted["banned_until"] is NSNull)
            #expect(try await server.signIn("ban@example.com").status == 200)
        }
    }

    @Test("admin logout revokes every session of the user")
    func adminLogout() async throws {
        try await TestServer.with { server in
            let a = try await server.signUp("revoke@example.com")
            let b = try #require(TestSession(try await server.signIn("revoke@example.com")))
            #expect(try await server.request(.POST, "/admin/users/\(a.userID)/logout", bearer: server.server.serviceRoleKey).status == 204)
            try await server.expectEnded([a, b])
        }
    }

    @Test("a password set by the admin ends every session of the user; other changes end none")
    func adminPasswordEndsSessions() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            let phone = try await server.signUp("reset@example.com", "old password 123")
            let laptop = try #require(TestSession(try await server.signIn("reset@example.com", "old password 123")))
            let renamed = try await server.request(
                .PUT, "/admin/users/\(phone.userID)", json: ["user_metadata": ["display_name": "Reset"]], bearer: key)
            #expect(renamed.status == 200)
            #expect(try await server.isAlive(laptop), "a change without a password ends nothing")
            let reset = try await server.request(.PUT, "/admin/users/\(phone.userID)", json: ["password": "new password 456"], bearer: key)
            #expect(reset.status == 200)
            try await server.expectEnded([phone, laptop])
            #expect(try await server.signIn("reset@example.com", "new password 456").status == 200)
        }
    }
}

/// HTTP methods as the admin table lists them.
enum HTTPMethodProbe: String, CustomStringConvertible {
    case get, post, put, delete
    var description: String { rawValue.uppercased() }
    var nio: HTTPMethod {
        switch self {
        case .get: .GET
        case .post: .POST
        case .put: .PUT
        case .delete: .DELETE
        }
    }
}
