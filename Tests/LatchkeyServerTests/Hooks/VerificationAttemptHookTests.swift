import Foundation
import Testing

@testable import LatchkeyServer

/// GoTrue's verification attempt hooks over HTTP (`GOTRUE_HOOK_PASSWORD_VERIFICATION_ATTEMPT_*`,
/// `GOTRUE_HOOK_MFA_VERIFICATION_ATTEMPT_*`): the hook sees every attempt, right or wrong, and
/// its rejection refuses even a right password or code; a hook that cannot be asked lets nobody in.
@Suite("verification attempt hooks")
struct VerificationAttemptHookTests {
    static func hooked(_ hook: FakeHook) -> @Sendable (inout ServerConfiguration) -> Void {
        let url = hook.url
        return { configuration in
            configuration.autoconfirm = true
            configuration.rateLimits.mfaRequestsPerIP.count = 1000
            configuration.hooks.passwordVerificationAttempt.enabled = true
            configuration.hooks.passwordVerificationAttempt.uri = url
            configuration.hooks.passwordVerificationAttempt.secrets = FakeHook.secret
            configuration.hooks.mfaVerificationAttempt.enabled = true
            configuration.hooks.mfaVerificationAttempt.uri = url
            configuration.hooks.mfaVerificationAttempt.secrets = FakeHook.secret
        }
    }

    static func decision(_ json: String) -> FakeHook.Mode { .answer(status: 200, contentType: "application/json", body: json) }

    @Test("the password hook sees right and wrong passwords of existing accounts, never the password; no decision lets the attempt go on")
    func passwordAttemptsSeen() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: Self.hooked(hook)) { server in
            let session = try await server.signUp("seen@example.com")
            hook.set(.answer(status: 204, contentType: nil, body: ""))
            let right = try await server.signIn("seen@example.com")
            #expect(right.status == 200 && right["access_token"] != nil, "\(right.text)")
            let sent = try #require(hook.requests.last)
            #expect(sent.headers["webhook-signature"]?.hasPrefix("v1,") == true)
            let metadata = try #require(sent.body["metadata"] as? [String: Any])
            #expect(metadata["name"] as? String == "password-verification" && (metadata["ip_address"] as? String)?.isEmpty == false)
            #expect(sent.body["user_id"] as? String == session.userID && sent.body["valid"] as? Bool == true)
            #expect(!"\(sent.body)".contains("correct horse battery"))

            hook.set(Self.decision("{}"))
            let wrong = try await server.signIn("seen@example.com", "wrong horse battery")
            #expect(wrong.status == 400 && wrong.errorCode == "invalid_credentials" && wrong["msg"] as? String == "Invalid login credentials")
            #expect(hook.requests.last?.body["valid"] as? Bool == false)

            // An address with no account is not the hook's business (nor would its answer tell anything).
            let before = hook.requests.count
            let unknown = try await server.signIn("nobody@example.com")
            #expect(unknown.status == 400 && unknown.errorCode == "invalid_credentials")
            #expect(hook.requests.count == before)
        }
    }

    @Test("a banned account's attempts never reach the password hook; only the right password learns of the ban")
    func bannedAccountNotAsked() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: Self.hooked(hook)) { server in
            let session = try await server.signUp("banned@example.com")
            let ban = try await server.request(
                .PUT, "/admin/users/\(session.userID)", json: ["ban_duration": "1h"], bearer: server.server.serviceRoleKey)
            #expect(ban.status == 200, "\(ban.text)")
            hook.set(Self.decision(#"{"decision": "continue"}"#))
            let before = hook.requests.count
            try await server.signIn("banned@example.com").expectError(400, "user_banned")
            try await server.signIn("banned@example.com", "wrong horse battery").expectError(400, "invalid_credentials")
            #expect(hook.requests.count == before)
            // Once the ban ends the hook is asked again.
            server.clock.advance(by: 3601)
            #expect(try await server.signIn("banned@example.com").status == 200)
            #expect(hook.requests.count == before + 1)
        }
    }

    @Test("a rejection refuses the right password with the hook's message; should_logout_user ends every session, otherwise they live on")
    func passwordRejection() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: Self.hooked(hook)) { server in
            let session = try await server.signUp("reject@example.com")
            hook.set(Self.decision(#"{"decision": "reject", "message": "Locked for review"}"#))
            let refused = try await server.signIn("reject@example.com")
            #expect(refused.status == 400 && refused.errorCode == "invalid_credentials" && refused["msg"] as? String == "Locked for review")
            #expect(refused["access_token"] == nil)
            let stillAlive = try await server.refresh(session.refreshToken)
            #expect(stillAlive.status == 200, "\(stillAlive.text)")
            let renewed = try #require(TestSession(stillAlive))

            hook.set(Self.decision(#"{"decision": "reject", "should_logout_user": true}"#))
            let loggedOut = try await server.signIn("reject@example.com")
            #expect(loggedOut.status == 400 && loggedOut["msg"] as? String == "Further password verification attempts will be rejected.")
            #expect(try await server.refresh(renewed.refreshToken).errorCode == "refresh_token_not_found")

            // Any other decision is no decision: the right password signs in again.
            hook.set(Self.decision(#"{"decision": "continue"}"#))
            #expect(try await server.signIn("reject@example.com").status == 200)
        }
    }

    @Test("a hook answering garbage or an error on the right password lets nobody in, with GoTrue's hook errors")
    func passwordHookFailures() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: {
            Self.hooked(hook)(&$0)
            $0.hooks.httpTimeout = 10
        }) { server in
            try await server.signUp("garbage@example.com")
            hook.set(Self.decision("not json"))
            let unreadable = try await server.signIn("garbage@example.com")
            #expect(unreadable.status == 500 && unreadable["msg"] as? String == "Error unmarshaling JSON output.", "\(unreadable.text)")
            hook.set(Self.decision(#"{"decision": 1}"#))
            #expect(try await server.signIn("garbage@example.com").status == 500)
            hook.set(.answer(status: 200, contentType: "text/plain", body: "ok"))
            #expect(try await server.signIn("garbage@example.com").errorCode == "hook_payload_invalid_content_type")
            hook.set(Self.decision(#"{"error": {"http_code": 429, "message": "Slow down"}}"#))
            let hookError = try await server.signIn("garbage@example.com")
            #expect(hookError.status == 429 && hookError["msg"] as? String == "Slow down" && hookError["access_token"] == nil)
            hook.set(.hang)
            let slow = try await server.signIn("garbage@example.com")
            #expect(slow.status == 422 && slow.errorCode == "hook_timeout" && slow["access_token"] == nil, "\(slow.text)")
        }
    }

    @Test(
        "the MFA hook sees each TOTP code; its rejection of the right code is 403 mfa_verification_rejected, ends every session and verifies nothing")
    func mfaRejection() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: Self.hooked(hook)) { server in
            let session = try await server.signUp("totp@example.com")
            let factor = try await MFATests.enroll(server, session.accessToken)
            let challenge = try await MFATests.challenge(server, session.accessToken, factor.id)
            let right = MFATests.code(factor.secret, server)
            let wrong = right == "000000" ? "000001" : "000000"

            hook.set(.answer(status: 204, contentType: nil, body: ""))
            let refused = try await MFATests.verify(server, session.accessToken, factor.id, challenge: challenge, code: wrong)
            #expect(refused.status == 422 && refused.errorCode == "mfa_verification_failed")
            let sent = try #require(hook.requests.last?.body)
            #expect((sent["metadata"] as? [String: Any])?["name"] as? String == "mfa-verification")
            #expect(sent["valid"] as? Bool == false && sent["factor_id"] as? String == factor.id && sent["factor_type"] as? String == "totp")
            #expect(sent["user_id"] as? String == session.userID && !"\(sent)".contains(wrong))

            hook.set(Self.decision(#"{"decision": "reject", "message": "Too many tries"}"#))
            let rejected = try await MFATests.verify(server, session.accessToken, factor.id, challenge: challenge, code: right)
            #expect(rejected.status == 403 && rejected.errorCode == "mfa_verification_rejected" && rejected["msg"] as? String == "Too many tries")
            #expect(hook.requests.last?.body["valid"] as? Bool == true)
            #expect(try await server.refresh(session.refreshToken).errorCode == "refresh_token_not_found")

            // Signed in again, the factor is still unverified and the right code, accepted, raises the session.
            hook.set(.answer(status: 204, contentType: nil, body: ""))
            let signedIn = try await server.signIn("totp@example.com")
            let again = try #require(TestSession(signedIn))
            let factors = try await MFATests.factors(server, again.accessToken)
            #expect(factors.first?["status"] as? String == "unverified")
            let second = try await MFATests.challenge(server, again.accessToken, factor.id)
            let accepted = try await MFATests.verify(server, again.accessToken, factor.id, challenge: second, code: right)
            #expect(accepted.status == 200, "\(accepted.text)")
            let raised = try #require(TestSession(accepted))
            #expect(try MFATests.claims(raised.accessToken)["aal"] as? String == "aal2")
        }
    }

    @Test("a challenge that does not open (unknown, expired) is refused before the MFA hook is asked, as in GoTrue")
    func mfaChallengeCheckedFirst() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: Self.hooked(hook)) { server in
            hook.set(.answer(status: 204, contentType: nil, body: ""))
            let session = try await server.signUp("totp-order@example.com")
            let factor = try await MFATests.enroll(server, session.accessToken)
            let challenge = try await MFATests.challenge(server, session.accessToken, factor.id)
            let before = hook.requests.count
            let unknown = try await MFATests.verify(
                server, session.accessToken, factor.id, challenge: UUID().uuidString.lowercased(), code: MFATests.code(factor.secret, server))
            #expect(unknown.status == 422 && unknown.errorCode == "mfa_factor_not_found", "\(unknown.text)")
            server.clock.advance(by: 301)
            let expired = try await MFATests.verify(
                server, session.accessToken, factor.id, challenge: challenge, code: MFATests.code(factor.secret, server))
            #expect(expired.errorCode == "mfa_challenge_expired", "\(expired.text)")
            #expect(hook.requests.count == before, "the hook was asked about an attempt that never reached its code")
        }
    }

    @Test("the MFA hook sees phone factor codes too; its rejection of the right code is refused and ends every session")
    func mfaPhoneRejection() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await PhoneFactorTests.withServer(configure: Self.hooked(hook)) { server, sms in
            hook.set(.answer(status: 204, contentType: nil, body: ""))
            let session = try await server.signUp("phone-hook@example.com")
            let factorID = try await PhoneFactorTests.enroll(server, session.accessToken)
            let challenge = try await PhoneFactorTests.challengeID(server, session.accessToken, factorID)
            let code = try sms.code(to: PhoneFactorTests.number)
            let wrong = try await MFATests.verify(server, session.accessToken, factorID, challenge: challenge, code: PhoneFactorTests.wrong(code))
            #expect(wrong.status == 422, "\(wrong.text)")
            let sent = try #require(hook.requests.last?.body)
            #expect(sent["valid"] as? Bool == false && sent["factor_type"] as? String == "phone" && sent["factor_id"] as? String == factorID)
            #expect(!"\(sent)".contains(code))

            hook.set(Self.decision(#"{"decision": "reject", "message": "Not from here"}"#))
            let rejected = try await MFATests.verify(server, session.accessToken, factorID, challenge: challenge, code: code)
            #expect(rejected.status == 403 && rejected.errorCode == "mfa_verification_rejected" && rejected["msg"] as? String == "Not from here")
            #expect(hook.requests.last?.body["valid"] as? Bool == true)
            #expect(try await server.refresh(session.refreshToken).errorCode == "refresh_token_not_found")
        }
    }

    @Test("an MFA hook that fails refuses the right code with its error; a rejection without a message gets GoTrue's")
    func mfaHookFailures() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: Self.hooked(hook)) { server in
            hook.set(.answer(status: 204, contentType: nil, body: ""))
            let session = try await server.signUp("totp-fail@example.com")
            let factor = try await MFATests.enroll(server, session.accessToken)
            let challenge = try await MFATests.challenge(server, session.accessToken, factor.id)
            let right = MFATests.code(factor.secret, server)
            hook.set(.answer(status: 500, contentType: nil, body: ""))
            let failed = try await MFATests.verify(server, session.accessToken, factor.id, challenge: challenge, code: right)
            #expect(failed.status == 500 && failed["access_token"] == nil, "\(failed.text)")
            hook.set(Self.decision(#"{"decision": "reject"}"#))
            let rejected = try await MFATests.verify(server, session.accessToken, factor.id, challenge: challenge, code: right)
            #expect(rejected.status == 403 && rejected["msg"] as? String == "Further MFA verification attempts will be rejected.")
        }
    }

    @Test("a verification attempt hook's bad URI or secret is refused at start, naming the setting")
    func configuration() throws {
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
        configuration.hooks.passwordVerificationAttempt.enabled = true
        configuration.hooks.passwordVerificationAttempt.uri = "http://hooks.example.com/password"
        configuration.hooks.passwordVerificationAttempt.secrets = FakeHook.secret
        #expect(throws: ConfigurationError.self) { try configuration.hooks.validate() }
        configuration.hooks.passwordVerificationAttempt.enabled = false
        configuration.hooks.mfaVerificationAttempt.enabled = true
        configuration.hooks.mfaVerificationAttempt.uri = "https://hooks.example.com/mfa"
        configuration.hooks.mfaVerificationAttempt.secrets = "v1,whsec_"
        do {
            try configuration.hooks.validate()
            Issue.record("an empty secret was accepted")
        } catch {
            #expect("\(error)".contains("GOTRUE_HOOK_MFA_VERIFICATION_ATTEMPT_SECRETS"))
        }
    }
}
