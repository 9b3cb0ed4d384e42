import Foundation
import LatchkeyTestSupport
import Testing

@testable import LatchkeyServer

/// GoTrue's send email hook over HTTP (`GOTRUE_HOOK_SEND_EMAIL_*`): every email — confirmation,
/// invitation, magic link, recovery, both halves of an email change, reauthentication and the
/// account-change notices — goes to the hook, signed, instead of the mailer, with GoTrue's
/// `email_action_type`; the codes and link tokens it gets verify. A hook that refuses or fails
/// is the client's answer, and the email's rate-limit slot is given back.
@Suite("send email hook")
struct SendEmailHookTests {
    static func hooked(_ hook: FakeHook) -> (inout ServerConfiguration) -> Void {
        let url = hook.url
        return {
            $0.autoconfirm = false
            $0.hooks.sendEmail.enabled = true
            $0.hooks.sendEmail.uri = url
            $0.hooks.sendEmail.secrets = FakeHook.secret
        }
    }

    static func withHookedServer(
        _ hook: FakeHook, configure: @escaping (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestServer) async throws -> Void
    ) async throws {
        let hooked = hooked(hook)
        try await TestServer.with(configure: {
            hooked(&$0)
            configure(&$0)
        }) { server in try await body(server) }
    }

    /// The `email_data` of the hook's last request, checking it is a send email call about `email`.
    static func lastEmail(_ hook: FakeHook, about email: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: String]
    {
        let input = try #require(hook.requests.last?.body, sourceLocation: sourceLocation)
        #expect((input["metadata"] as? [String: Any])?["name"] as? String == "send-email", sourceLocation: sourceLocation)
        if let email { #expect((input["user"] as? [String: Any])?["email"] as? String == email, sourceLocation: sourceLocation) }
        let data = try #require(input["email_data"] as? [String: String], sourceLocation: sourceLocation)
        for key in [
            "token", "token_hash", "redirect_to", "email_action_type", "site_url", "token_new", "token_hash_new", "old_email", "old_phone",
            "provider", "factor_type",
        ] {
            #expect(data[key] != nil, "email_data.\(key) is always sent", sourceLocation: sourceLocation)
        }
        return data
    }

    /// A confirmed account of `email`, signed in: its confirmation code is taken from the hook.
    static func confirmedAccount(_ server: TestServer, _ hook: FakeHook, _ email: String) async throws -> TestSession {
        let signUp = try await server.request(.POST, "/signup", json: ["email": email, "password": "correct horse battery"])
        #expect(signUp.status == 200, "\(signUp.text)")
        let verified = try await server.request(
            .POST, "/verify", json: ["type": "signup", "email": email, "token": try lastEmail(hook)["token"] ?? ""])
        return try #require(TestSession(verified), "\(verified.text)")
    }

    @Test(
        "confirmation, magic link, recovery and invitation reach the hook, signed, with their action type; their codes and token hashes verify; nothing is mailed"
    )
    func tokenEmails() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        hook.set(.answer(status: 204, contentType: nil, body: ""))
        try await Self.withHookedServer(hook, configure: { $0.siteURL = "https://app.example.com" }) { server in
            let signUp = try await server.request(.POST, "/signup", json: ["email": "ada@example.com", "password": "correct horse battery"])
            #expect(signUp.status == 200, "\(signUp.text)")
            #expect(try hook.lastRequestIsSigned())
            let confirmation = try Self.lastEmail(hook, about: "ada@example.com")
            #expect(confirmation["email_action_type"] == "signup")
            #expect(confirmation["site_url"]?.hasPrefix("http://") == true, "the server's own URL, where /verify is")
            #expect(confirmation["redirect_to"] == "https://app.example.com")
            #expect(confirmation["token"]?.count == 6 && confirmation["token_new"] == "")
            let confirmed = try await server.request(
                .POST, "/verify", json: ["type": "signup", "email": "ada@example.com", "token": confirmation["token"] ?? ""])
            #expect(TestSession(confirmed) != nil, "\(confirmed.text)")

            #expect(try await server.request(.POST, "/otp", json: ["email": "ada@example.com"]).status == 200)
            let magicLink = try Self.lastEmail(hook, about: "ada@example.com")
            #expect(magicLink["email_action_type"] == "magiclink")
            let signedIn = try await server.request(.POST, "/verify", json: ["type": "magiclink", "token_hash": magicLink["token_hash"] ?? ""])
            #expect(TestSession(signedIn) != nil, "\(signedIn.text)")

            server.clock.advance(by: 61)
            #expect(try await server.request(.POST, "/recover", json: ["email": "ada@example.com"]).status == 200)
            let recovery = try Self.lastEmail(hook, about: "ada@example.com")
            #expect(recovery["email_action_type"] == "recovery")
            let recovered = try await server.request(
                .POST, "/verify", json: ["type": "recovery", "email": "ada@example.com", "token": recovery["token"] ?? ""])
            #expect(TestSession(recovered) != nil, "\(recovered.text)")

            let invited = try await server.request(.POST, "/invite", json: ["email": "bo@example.com"], bearer: server.server.serviceRoleKey)
            #expect(invited.status == 200, "\(invited.text)")
            let invitation = try Self.lastEmail(hook, about: "bo@example.com")
            #expect(invitation["email_action_type"] == "invite")
            let accepted = try await server.request(.POST, "/verify", json: ["type": "invite", "token_hash": invitation["token_hash"] ?? ""])
            #expect(TestSession(accepted) != nil, "\(accepted.text)")

            #expect(hook.requests.count == 4)
            #expect(try server.outbox().isEmpty, "nothing goes to the mailer")
        }
    }

    @Test("a secure email change is one hook call with GoTrue's pairing: token for the current address, token_new for the new one; both verify")
    func secureEmailChange() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        hook.set(.answer(status: 204, contentType: nil, body: ""))
        try await Self.withHookedServer(hook, configure: { $0.notifications.emailChanged = true }) { server in
            let session = try await Self.confirmedAccount(server, hook, "old@example.com")
            let before = hook.requests.count
            let update = try await server.request(.PUT, "/user", json: ["email": "new@example.com"], bearer: session.accessToken)
            #expect(update.status == 200, "\(update.text)")
            #expect(hook.requests.count == before + 1, "one call for both halves")
            let data = try Self.lastEmail(hook, about: "old@example.com")
            #expect((hook.requests.last?.body["user"] as? [String: Any])?["new_email"] as? String == "new@example.com")
            #expect(data["email_action_type"] == "email_change")
            let (current, new) = (try #require(data["token"]), try #require(data["token_new"]))
            #expect(current.count == 6 && new.count == 6 && current != new)
            #expect(data["token_hash"]?.isEmpty == false && data["token_hash_new"]?.isEmpty == false)

            // Each code only with its own address: the pairing is not swapped.
            try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "old@example.com", "token": new])
                .expectError(403, "otp_expired")
            let first = try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "new@example.com", "token": new])
            #expect(first["msg"] as? String == SecureEmailChangeTests.awaiting, "\(first.text)")
            let second = try await server.request(.POST, "/verify", json: ["type": "email_change", "email": "old@example.com", "token": current])
            #expect(TestSession(second)?.email == "new@example.com", "\(second.text)")

            #expect(
                await eventually(timeout: 120) {
                    (try? Self.lastEmail(hook))?["email_action_type"] == "email_changed_notification"
                })
            #expect(try Self.lastEmail(hook, about: "new@example.com")["old_email"] == "old@example.com")
            #expect(try server.outbox().isEmpty)
        }
    }

    @Test("with secure email change off, token and token_hash are the new address's; the token hash changes the address")
    func plainEmailChange() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        hook.set(.answer(status: 204, contentType: nil, body: ""))
        try await Self.withHookedServer(hook, configure: { $0.secureEmailChange = false }) { server in
            let session = try await Self.confirmedAccount(server, hook, "old@example.com")
            #expect(try await server.request(.PUT, "/user", json: ["email": "new@example.com"], bearer: session.accessToken).status == 200)
            let data = try Self.lastEmail(hook)
            #expect(data["email_action_type"] == "email_change" && data["token_new"] == "" && data["token_hash_new"] == "")
            let changed = try await server.request(.POST, "/verify", json: ["type": "email_change", "token_hash": data["token_hash"] ?? ""])
            #expect(TestSession(changed)?.email == "new@example.com", "\(changed.text)")
        }
    }

    @Test("a reauthentication code goes to the hook and is the nonce a password change takes; a password-changed notice follows")
    func reauthenticationAndNotice() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        hook.set(.answer(status: 204, contentType: nil, body: ""))
        try await Self.withHookedServer(
            hook,
            configure: {
                $0.securePasswordChange = true
                $0.notifications.passwordChanged = true
            }
        ) { server in
            let session = try await Self.confirmedAccount(server, hook, "careful@example.com")
            server.clock.advance(by: 24 * 3600 + 1)
            let refreshed = try #require(TestSession(try await server.refresh(session.refreshToken)))
            #expect(try await server.request(.GET, "/reauthenticate", bearer: refreshed.accessToken).status == 200)
            let data = try Self.lastEmail(hook, about: "careful@example.com")
            #expect(data["email_action_type"] == "reauthentication" && data["token_hash"] == "")
            let changed = try await server.request(
                .PUT, "/user", json: ["password": "second new password", "nonce": data["token"] ?? ""], bearer: refreshed.accessToken)
            #expect(changed.status == 200, "\(changed.text)")
            #expect(
                await eventually(timeout: 120) {
                    (try? Self.lastEmail(hook))?["email_action_type"] == "password_changed_notification"
                })
            #expect(try server.outbox().isEmpty)
        }
    }

    @Test("a refusal is the hook's own error, garbage and a 500 are GoTrue's hook errors; each gives the email slot back")
    func failures() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await Self.withHookedServer(hook) { server in
            hook.set(.answer(status: 204, contentType: nil, body: ""))
            _ = try await Self.confirmedAccount(server, hook, "ada@example.com")
            server.clock.advance(by: 61)
            hook.set(
                .answer(status: 200, contentType: "application/json", body: #"{"error": {"http_code": 403, "message": "No mail to that domain"}}"#))
            let refused = try await server.request(.POST, "/recover", json: ["email": "ada@example.com"])
            #expect(refused.status == 403 && refused["msg"] as? String == "No mail to that domain", "\(refused.text)")
            hook.set(.answer(status: 200, contentType: "application/json", body: "{not json"))
            let garbage = try await server.request(.POST, "/recover", json: ["email": "ada@example.com"])
            #expect(garbage.status == 500 && garbage.errorCode == "unexpected_failure", "\(garbage.text)")
            hook.set(.answer(status: 500, contentType: nil, body: ""))
            let failed = try await server.request(.POST, "/recover", json: ["email": "ada@example.com"])
            #expect(failed.status == 500 && failed["msg"] as? String == "Unexpected status code returned from hook: 500", "\(failed.text)")
            // One email a minute per address: the slot came back after each failure.
            hook.set(.answer(status: 204, contentType: nil, body: ""))
            #expect(try await server.request(.POST, "/recover", json: ["email": "ada@example.com"]).status == 200)
            try await server.request(.POST, "/recover", json: ["email": "ada@example.com"]).expectError(429, "over_email_send_rate_limit")
            #expect(try server.outbox().isEmpty)
        }
    }

    @Test("a hook that does not answer within its time limit is hook_timeout")
    func timeout() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await Self.withHookedServer(hook, configure: { $0.hooks.httpTimeout = 10 }) { server in
            hook.set(.hang)
            let response = try await server.request(.POST, "/signup", json: ["email": "slow@example.com", "password": "correct horse battery"])
            #expect(response.status == 422 && response.errorCode == "hook_timeout", "\(response.text)")
        }
    }

    @Test("an absent or malformed secret, or an unusable URI, refuses the start naming the setting; no URI starts")
    func configuration() throws {
        func refusal(_ change: (inout AuthHookSettings) -> Void) -> String? {
            hookConfigurationRefusal(\.sendEmail, uri: "https://hooks.example.com/email", change)
        }
        #expect(refusal { _ in } == nil)
        #expect(refusal { $0.secrets = nil }?.contains("GOTRUE_HOOK_SEND_EMAIL_SECRETS") == true)
        #expect(refusal { $0.secrets = "v1,whsec_" }?.contains("GOTRUE_HOOK_SEND_EMAIL_SECRETS") == true)
        #expect(refusal { $0.uri = nil } == nil, "starts, as GoTrue, with a warning (StartsLikeGoTrueTests)")
        #expect(refusal { $0.uri = "http://hooks.example.com/email" }?.contains("hook-send-email-uri") == true)
        #expect(refusal { $0.uri = "pg-functions://postgres/public/send_email" }?.contains("PostgreSQL") == true)
    }
}
