import Foundation
import Testing

@testable import LatchkeyServer

/// GoTrue's before user created hook over HTTP (`GOTRUE_HOOK_BEFORE_USER_CREATED_*`): a sign-up
/// the hook refuses is answered with the hook's error and stores nothing.
@Suite("before user created hook")
struct BeforeUserCreatedHookTests {
    static func hooked(_ hook: FakeHook, autoconfirm: Bool) -> @Sendable (inout ServerConfiguration) -> Void {
        let url = hook.url
        return { configuration in
            configuration.autoconfirm = autoconfirm
            configuration.enableAnonymousUsers = true
            configuration.hooks.beforeUserCreated.enabled = true
            configuration.hooks.beforeUserCreated.uri = url
            configuration.hooks.beforeUserCreated.secrets = FakeHook.secret
        }
    }

    static let refusal = FakeHook.Mode.answer(
        status: 200, contentType: "application/json", body: #"{"error": {"http_code": 403, "message": "No sign-ups from example.org"}}"#)

    @Test("a refused email sign-up is the hook's error and stores nothing; an accepted one is stored", arguments: [true, false])
    func emailSignUp(autoconfirm: Bool) async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: Self.hooked(hook, autoconfirm: autoconfirm)) { server in
            hook.set(Self.refusal)
            let body: [String: any Sendable] = ["email": "new@example.org", "password": "correct horse battery", "data": ["team": "blue"]]
            let refused = try await server.request(.POST, "/signup", json: body)
            #expect(refused.status == 403 && refused["msg"] as? String == "No sign-ups from example.org", "\(refused.text)")
            #expect(try server.mailCount(to: "new@example.org") == 0)
            let sent = try #require(hook.requests.last?.body)
            #expect((sent["metadata"] as? [String: Any])?["name"] as? String == "before-user-created")
            let user = try #require(sent["user"] as? [String: Any])
            #expect(user["email"] as? String == "new@example.org" && (user["user_metadata"] as? [String: Any])?["team"] as? String == "blue")
            #expect(user["encrypted_password"] == nil && !"\(sent)".contains("correct horse battery"))

            // Nothing was stored: the same address signs up once the hook agrees (204, nothing to say).
            hook.set(.answer(status: 204, contentType: nil, body: ""))
            let accepted = try await server.request(.POST, "/signup", json: body)
            #expect(accepted.status == 200, "\(accepted.text)")
            #expect(autoconfirm ? accepted["access_token"] != nil : try server.mailCount(to: "new@example.org") == 1)
        }
    }

    @Test("an anonymous sign-up goes through the hook too; a hook that fails refuses it")
    func anonymousSignUp() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: Self.hooked(hook, autoconfirm: true)) { server in
            hook.set(Self.refusal)
            let refused = try await server.request(.POST, "/signup", json: [:])
            #expect(refused.status == 403, "\(refused.text)")
            hook.set(.answer(status: 500, contentType: nil, body: ""))
            let failed = try await server.request(.POST, "/signup", json: [:])
            #expect(failed.status == 500 && failed["msg"] as? String == "Unexpected status code returned from hook: 500", "\(failed.text)")
            hook.set(.answer(status: 200, contentType: "application/json", body: "{}"))
            let accepted = try await server.request(.POST, "/signup", json: [:])
            #expect(accepted.status == 200 && accepted["access_token"] != nil, "\(accepted.text)")
            #expect(((hook.requests.last?.body["user"] as? [String: Any])?["is_anonymous"] as? Bool) == true)
        }
    }
}

/// The before user created hook on every other path that makes an account, as GoTrue calls it:
/// a provider's first sign-in (ID token, OAuth), an invitation, a generated sign-up link, email
/// and phone one-time codes, phone sign-up. The admin API does not call it (neither does GoTrue's).
@Suite("before user created hook, every path")
struct BeforeUserCreatedEveryPathTests {
    /// The number of accounts the server has.
    static func userCount(_ server: TestServer) async throws -> Int {
        let listed = try await server.request(.GET, "/admin/users", bearer: server.server.serviceRoleKey)
        return (listed["users"] as? [[String: Any]])?.count ?? -1
    }

    static func refusingHook() async throws -> FakeHook {
        let hook = try await FakeHook.start()
        hook.set(BeforeUserCreatedHookTests.refusal)
        return hook
    }

    @Test("an ID-token first sign-in the hook refuses stores nothing; a known identity signs in without asking")
    func idToken() async throws {
        let hook = try await Self.refusingHook()
        defer { Task { await hook.stop() } }
        try await IDTokenGrantTests.with(configure: BeforeUserCreatedHookTests.hooked(hook, autoconfirm: true)) { server, provider in
            let token = try provider.idToken(
                subject: "refused-1", audience: IDTokenGrantTests.clientID, email: "idt@example.org", issuedAt: server.clock.now())
            let refused = try await IDTokenGrantTests.grant(server, token)
            #expect(refused.status == 403 && refused["msg"] as? String == "No sign-ups from example.org", "\(refused.text)")
            #expect(try await Self.userCount(server) == 0)
            let user = try #require(hook.requests.last?.body["user"] as? [String: Any])
            #expect(user["email"] as? String == "idt@example.org")
            #expect((user["app_metadata"] as? [String: Any])?["provider"] as? String == "keycloak")

            hook.set(.answer(status: 204, contentType: nil, body: ""))
            let accepted = try await IDTokenGrantTests.grant(server, token)
            #expect(accepted.status == 200, "\(accepted.text)")
            #expect(try await Self.userCount(server) == 1)
            // The account exists now: signing in again is no sign-up, so the hook is not asked.
            hook.set(BeforeUserCreatedHookTests.refusal)
            let asked = hook.requests.count
            let again = try await IDTokenGrantTests.grant(
                server, try provider.idToken(subject: "refused-1", audience: IDTokenGrantTests.clientID, issuedAt: server.clock.now()))
            #expect(again.status == 200 && hook.requests.count == asked, "\(again.text)")
        }
    }

    @Test("an invitation and a generated sign-up link the hook refuses store nothing; the admin API does not ask it")
    func invitationsAndAdmin() async throws {
        let hook = try await Self.refusingHook()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: BeforeUserCreatedHookTests.hooked(hook, autoconfirm: false)) { server in
            let key = server.server.serviceRoleKey
            let invited = try await server.request(.POST, "/invite", json: ["email": "invitee@example.org"], bearer: key)
            #expect(invited.status == 403 && invited["msg"] as? String == "No sign-ups from example.org", "\(invited.text)")
            #expect(try server.mailCount(to: "invitee@example.org") == 0)
            let linked = try await server.request(
                .POST, "/admin/generate_link", json: ["type": "signup", "email": "link@example.org", "password": "correct horse battery"],
                bearer: key)
            #expect(linked.status == 403, "\(linked.text)")
            let invitedLink = try await server.request(
                .POST, "/admin/generate_link", json: ["type": "invite", "email": "il@example.org"], bearer: key)
            #expect(invitedLink.status == 403, "\(invitedLink.text)")
            #expect(try await Self.userCount(server) == 0)

            let asked = hook.requests.count
            let made = try await server.request(.POST, "/admin/users", json: ["email": "admin-made@example.org"], bearer: key)
            #expect(made.status == 200 && hook.requests.count == asked, "\(made.text)")

            hook.set(.answer(status: 204, contentType: nil, body: ""))
            #expect(try await server.request(.POST, "/invite", json: ["email": "invitee@example.org"], bearer: key).status == 200)
            #expect(try server.mailCount(to: "invitee@example.org") == 1)
        }
    }

    @Test("an email one-time code for a new address the hook refuses stores and mails nothing")
    func emailOTP() async throws {
        let hook = try await Self.refusingHook()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: BeforeUserCreatedHookTests.hooked(hook, autoconfirm: false)) { server in
            let refused = try await server.request(.POST, "/otp", json: ["email": "otp@example.org"])
            #expect(refused.status == 403, "\(refused.text)")
            #expect(try server.mailCount(to: "otp@example.org") == 0)
            #expect(try await Self.userCount(server) == 0)
            hook.set(.answer(status: 204, contentType: nil, body: ""))
            #expect(try await server.request(.POST, "/otp", json: ["email": "otp@example.org"]).status == 200)
            #expect(try server.mailCount(to: "otp@example.org") == 1)
        }
    }

    @Test("a phone sign-up and a phone one-time code for a new number the hook refuses store and send nothing")
    func phone() async throws {
        let hook = try await Self.refusingHook()
        defer { Task { await hook.stop() } }
        let hooked = BeforeUserCreatedHookTests.hooked(hook, autoconfirm: false)
        try await PhoneSignInTests.withPhoneServer(configure: { hooked(&$0) }) { server, sms in
            let signUp = try await server.request(.POST, "/signup", json: ["phone": "15555550111", "password": "correct horse battery"])
            #expect(signUp.status == 403, "\(signUp.text)")
            let user = try #require(hook.requests.last?.body["user"] as? [String: Any])
            #expect(user["phone"] as? String == "15555550111")
            let otp = try await server.request(.POST, "/otp", json: ["phone": "15555550122"])
            #expect(otp.status == 403, "\(otp.text)")
            #expect(sms.sent.isEmpty)
            #expect(try await Self.userCount(server) == 0)
            hook.set(.answer(status: 204, contentType: nil, body: ""))
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550122"]).status == 200)
            #expect(sms.sent.count == 1)
        }
    }
}
