import Foundation
import Testing

@testable import LatchkeyServer

/// GoTrue's after user created hook over HTTP (`GOTRUE_HOOK_AFTER_USER_CREATED_*`): each new
/// account is sent to the hook once stored; the hook's error is the answer (GoTrue's 500 "Error
/// invoking hook" for sign-ups) and the account stays.
@Suite("after user created hook")
struct AfterUserCreatedHookTests {
    static func hooked(_ hook: FakeHook) -> (inout ServerConfiguration) -> Void {
        let url = hook.url
        return {
            $0.enableAnonymousUsers = true
            $0.hooks.afterUserCreated.enabled = true
            $0.hooks.afterUserCreated.uri = url
            $0.hooks.afterUserCreated.secrets = FakeHook.secret
        }
    }

    /// The `user` of the hook's last request, checking it is an after user created call.
    static func lastUser(_ hook: FakeHook) throws -> [String: Any] {
        let input = try #require(hook.requests.last?.body)
        #expect((input["metadata"] as? [String: Any])?["name"] as? String == "after-user-created")
        return try #require(input["user"] as? [String: Any])
    }

    @Test("an email sign-up, an anonymous sign-up, a one-time code for a new address and an invitation each reach the hook once stored, signed")
    func newAccounts() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        hook.set(.answer(status: 204, contentType: nil, body: ""))
        let hooked = Self.hooked(hook)
        try await TestServer.with(configure: { hooked(&$0) }) { server in
            let session = try await server.signUp("ada@example.com")
            #expect(try Self.lastUser(hook)["id"] as? String == session.userID)
            #expect(try hook.lastRequestIsSigned())

            let anonymous = try #require(TestSession(try await server.request(.POST, "/signup", json: [:])))
            #expect(try Self.lastUser(hook)["id"] as? String == anonymous.userID)

            #expect(try await server.request(.POST, "/otp", json: ["email": "bo@example.com"]).status == 200)
            #expect(try Self.lastUser(hook)["email"] as? String == "bo@example.com")

            let invited = try await server.request(.POST, "/invite", json: ["email": "cy@example.com"], bearer: server.server.serviceRoleKey)
            #expect(invited.status == 200, "\(invited.text)")
            #expect(try Self.lastUser(hook)["id"] as? String == invited["id"] as? String)

            // Signing in again, or another code for a known address, makes no account.
            #expect(try await server.signIn("ada@example.com").status == 200)
            server.clock.advance(by: 61)
            #expect(try await server.request(.POST, "/otp", json: ["email": "bo@example.com"]).status == 200)
            #expect(hook.requests.count == 4)
        }
    }

    @Test("a phone sign-up and a phone one-time code for a new number reach the hook after their code is sent")
    func phoneAccounts() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        hook.set(.answer(status: 204, contentType: nil, body: ""))
        let hooked = Self.hooked(hook)
        try await PhoneSignInTests.withPhoneServer(configure: { hooked(&$0) }) { server, sms in
            let signUp = try await server.request(.POST, "/signup", json: ["phone": "15555550123", "password": "phone password 1"])
            #expect(signUp.status == 200, "\(signUp.text)")
            #expect(try Self.lastUser(hook)["phone"] as? String == "15555550123")
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550124"]).status == 200)
            #expect(try Self.lastUser(hook)["phone"] as? String == "15555550124")
            #expect(hook.requests.count == 2 && sms.sent.count == 2)
        }
    }

    @Test("an ID-token first sign-in reaches the hook, and a failing hook is the answer while the account stays; a known identity does not call it")
    func idToken() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        hook.set(.answer(status: 200, contentType: "application/json", body: #"{"error": {"http_code": 403, "message": "Not now"}}"#))
        let hooked = Self.hooked(hook)
        try await IDTokenGrantTests.with(configure: { hooked(&$0) }) { server, provider in
            let token = try provider.idToken(
                subject: "after-1", audience: IDTokenGrantTests.clientID, email: "idt@example.org", issuedAt: server.clock.now())
            let refused = try await IDTokenGrantTests.grant(server, token)
            #expect(refused.status == 403 && refused["msg"] as? String == "Not now", "\(refused.text)")
            #expect(try Self.lastUser(hook)["email"] as? String == "idt@example.org")
            let asked = hook.requests.count
            let again = try await IDTokenGrantTests.grant(
                server, try provider.idToken(subject: "after-1", audience: IDTokenGrantTests.clientID, issuedAt: server.clock.now()))
            #expect(again.status == 200 && hook.requests.count == asked, "the account stayed: \(again.text)")
        }
    }

    @Test("a failing hook answers a sign-up 500 Error invoking hook and an invitation the hook's own error; the accounts stay")
    func failures() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        hook.set(.answer(status: 200, contentType: "application/json", body: #"{"error": {"http_code": 403, "message": "Not now"}}"#))
        let hooked = Self.hooked(hook)
        try await TestServer.with(configure: { hooked(&$0) }) { server in
            let signUp = try await server.request(.POST, "/signup", json: ["email": "ada@example.com", "password": "correct horse battery"])
            #expect(signUp.status == 500 && signUp["msg"] as? String == "Error invoking hook", "\(signUp.text)")
            #expect(try await server.signIn("ada@example.com").status == 200, "the account was stored before the hook was told")

            let invited = try await server.request(.POST, "/invite", json: ["email": "cy@example.com"], bearer: server.server.serviceRoleKey)
            #expect(invited.status == 403 && invited["msg"] as? String == "Not now", "\(invited.text)")
            hook.set(.answer(status: 204, contentType: nil, body: ""))
            let again = try await server.request(.POST, "/invite", json: ["email": "cy@example.com"], bearer: server.server.serviceRoleKey)
            #expect(again.status == 200, "the invited account stayed: \(again.text)")
        }
    }

    @Test("an absent or malformed secret, or an unusable URI, refuses the start naming the setting")
    func configuration() throws {
        func refusal(_ change: (inout AuthHookSettings) -> Void) -> String? {
            hookConfigurationRefusal(\.afterUserCreated, uri: "https://hooks.example.com/after", change)
        }
        #expect(refusal { _ in } == nil)
        #expect(refusal { $0.secrets = nil }?.contains("GOTRUE_HOOK_AFTER_USER_CREATED_SECRETS") == true)
        #expect(refusal { $0.uri = "http://hooks.example.com/after" }?.contains("hook-after-user-created-uri") == true)
        #expect(refusal { $0.uri = "pg-functions://postgres/public/after" }?.contains("PostgreSQL") == true)
    }
}
