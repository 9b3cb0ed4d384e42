import Foundation
import Testing

@testable import LatchkeyServer

/// `/admin/users` with `phone` and `phone_confirm`, as GoTrue answers them.
@Suite("Admin API: phone numbers")
struct AdminPhoneTests {
    @Test("a user created with a phone number alone has it normalised, confirmed on request, with a phone identity")
    func createWithPhone() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            let created = try await server.request(
                .POST, "/admin/users", json: ["phone": "+1 555 555 0100", "phone_confirm": true, "password": "phone password 1"], bearer: key)
            #expect(created.status == 200, "\(created.text)")
            #expect(created["phone"] as? String == "15555550100")
            #expect(created["email"] as? String == "")
            #expect(created["phone_confirmed_at"] is String)
            #expect(created["confirmed_at"] as? String == created["phone_confirmed_at"] as? String)
            #expect(created["email_confirmed_at"] == nil)
            let appMetadata = try #require(created["app_metadata"] as? [String: Any])
            #expect(appMetadata["provider"] as? String == "phone")
            #expect(appMetadata["providers"] as? [String] == ["phone"])
            let identities = try #require(created["identities"] as? [[String: Any]])
            #expect(identities.map { $0["provider"] as? String } == ["phone"])
            #expect((identities.first?["identity_data"] as? [String: Any])?["phone"] as? String == "15555550100")
            #expect((identities.first?["identity_data"] as? [String: Any])?["phone_verified"] as? Bool == true)

            let id = try #require(created["id"] as? String)
            #expect(try await server.request(.GET, "/admin/users/\(id)", bearer: key)["phone"] as? String == "15555550100")
        }
    }

    @Test("a taken number is 422 phone_exists on create and on update, and changes nothing")
    func takenNumber() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            #expect(try await server.request(.POST, "/admin/users", json: ["phone": "15555550100"], bearer: key).status == 200)
            let again = try await server.request(.POST, "/admin/users", json: ["phone": "+15555550100", "email": "x@example.com"], bearer: key)
            #expect(again.status == 422)
            #expect(again.errorCode == "phone_exists")
            #expect(again["msg"] as? String == "Phone number already registered by another user")
            let other = try await server.request(.POST, "/admin/users", json: ["email": "other@example.com"], bearer: key)
            let otherID = try #require(other["id"] as? String)
            let taken = try await server.request(.PUT, "/admin/users/\(otherID)", json: ["phone": "15555550100"], bearer: key)
            #expect(taken.status == 422 && taken.errorCode == "phone_exists")
            let after = try await server.request(.GET, "/admin/users/\(otherID)", bearer: key)
            #expect(after["phone"] as? String == "")
            #expect((after["app_metadata"] as? [String: Any])?["providers"] as? [String] == ["email"])
        }
    }

    @Test("adding a number to an email user keeps its email identity and adds the phone one; phone_confirm false unconfirms")
    func updateAddsPhone() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            let user = try await server.signUp("ada@example.com")
            let updated = try await server.request(
                .PUT, "/admin/users/\(user.userID)", json: ["phone": "447700900123", "phone_confirm": true], bearer: key)
            #expect(updated.status == 200, "\(updated.text)")
            #expect(updated["phone"] as? String == "447700900123")
            #expect((updated["app_metadata"] as? [String: Any])?["providers"] as? [String] == ["email", "phone"])
            #expect((updated["identities"] as? [[String: Any]])?.map { $0["provider"] as? String } == ["email", "phone"])
            let me = try await server.request(.GET, "/user", bearer: user.accessToken)
            #expect(me["phone"] as? String == "447700900123")
            #expect(me["phone_confirmed_at"] is String)

            let unconfirmed = try await server.request(.PUT, "/admin/users/\(user.userID)", json: ["phone_confirm": false], bearer: key)
            #expect(unconfirmed["phone_confirmed_at"] == nil)
        }
    }

    @Test("malformed numbers are 400 validation_failed with GoTrue's message; no email and no phone is refused")
    func malformedNumbers() async throws {
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            for bad in ["0123456789", "+", "12345678901234567", "1555-555-0100", "+1 (555) 5550100", "1", "++15555550100", "abc"] {
                let response = try await server.request(.POST, "/admin/users", json: ["phone": bad], bearer: key)
                #expect(response.status == 400, "\(bad)")
                #expect(response.errorCode == "validation_failed", "\(bad)")
                #expect(response["msg"] as? String == "Invalid phone number format (E.164 required)", "\(bad)")
            }
            let neither = try await server.request(.POST, "/admin/users", json: ["user_metadata": ["a": 1]], bearer: key)
            #expect(neither.status == 400)
            #expect(neither["msg"] as? String == "Cannot create a user without either an email or phone")
            #expect(try await server.request(.GET, "/admin/users", bearer: key)["users"] as? [Any] != nil)
            #expect(try await server.request(.GET, "/admin/users", bearer: key).headers.first(name: "X-Total-Count") == "0")
        }
    }
}
