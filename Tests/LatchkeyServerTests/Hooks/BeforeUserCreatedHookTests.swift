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
