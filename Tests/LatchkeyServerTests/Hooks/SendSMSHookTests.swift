import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// GoTrue's send SMS hook over HTTP (`GOTRUE_HOOK_SEND_SMS_*`): every SMS code — sign-in,
/// phone change, `/resend`, a phone factor's challenge — goes to the hook, signed, instead of the
/// SMS provider; a hook that refuses or fails is the client's answer, and the rate-limit slot is
/// given back as for a failed send.
@Suite("send SMS hook")
struct SendSMSHookTests {
    static func hooked(_ hook: FakeHook) -> (inout ServerConfiguration) -> Void {
        let url = hook.url
        return {
            $0.hooks.sendSMS.enabled = true
            $0.hooks.sendSMS.uri = url
            $0.hooks.sendSMS.secrets = FakeHook.secret
        }
    }

    static func withHookedPhoneServer(
        _ hook: FakeHook, configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestServer, RecordingSMSSender) async throws -> Void
    ) async throws {
        let hooked = hooked(hook)
        try await PhoneSignInTests.withPhoneServer(configure: {
            hooked(&$0)
            configure(&$0)
        }) { server, sms in try await body(server, sms) }
    }

    /// The `sms` object of the hook's last request.
    static func lastSMS(_ hook: FakeHook) throws -> [String: Any] {
        let input = try #require(hook.requests.last?.body)
        #expect((input["metadata"] as? [String: Any])?["name"] as? String == "send-sms")
        return try #require(input["sms"] as? [String: Any])
    }

    @Test("the code goes to the hook, signed with Standard Webhooks, with the user and the number; none to the provider; it signs in")
    func sendsToHook() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        hook.set(.answer(status: 200, contentType: "application/json", body: "{}"))
        try await Self.withHookedPhoneServer(hook) { server, sms in
            let sent = try await server.request(.POST, "/otp", json: ["phone": "+1 555 555 0123"])
            #expect(sent.status == 200, "\(sent.text)")
            #expect(sms.sent.isEmpty, "the provider gets nothing")
            #expect(try hook.lastRequestIsSigned())

            let payload = try Self.lastSMS(hook)
            #expect(payload["phone"] as? String == "15555550123")
            #expect(payload["sms_type"] == nil)
            let otp = try #require(payload["otp"] as? String)
            #expect(otp.count == 6 && otp.allSatisfy(\.isNumber))
            #expect((hook.requests.last?.body["user"] as? [String: Any])?["phone"] as? String == "15555550123")

            let verified = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": otp])
            #expect(TestSession(verified) != nil, "\(verified.text)")
        }
    }

    @Test("a phone change and /resend go to the hook, and their codes verify; a test number gets its fixed code and no hook call")
    func phoneChangeResendAndTestNumbers() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        hook.set(.answer(status: 204, contentType: nil, body: ""))
        try await Self.withHookedPhoneServer(hook, configure: { $0.phone.testCodes = "15555550999=123456" }) { server, sms in
            let session = try await server.signUp("ada@example.com")
            let updated = try await server.request(.PUT, "/user", json: ["phone": "+15555550123"], bearer: session.accessToken)
            #expect(updated.status == 200, "\(updated.text)")
            let change = try Self.lastSMS(hook)
            #expect(change["phone"] as? String == "15555550123")
            let changeCode = try #require(change["otp"] as? String)
            let changed = try await server.request(.POST, "/verify", json: ["type": "phone_change", "phone": "15555550123", "token": changeCode])
            #expect(changed.status == 200, "\(changed.text)")

            _ = try await server.request(.POST, "/signup", json: ["phone": "15555550124", "password": "phone password 1"])
            #expect(try Self.lastSMS(hook)["phone"] as? String == "15555550124")
            server.clock.advance(by: 61)
            let resent = try await server.request(.POST, "/resend", json: ["type": "sms", "phone": "+15555550124"])
            #expect(resent.status == 200, "\(resent.text)")
            #expect(hook.requests.count == 3)
            let code = try #require(try Self.lastSMS(hook)["otp"] as? String)
            #expect(try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550124", "token": code]).status == 200)

            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550999"]).status == 200)
            #expect(hook.requests.count == 3, "a test number's fixed code is not sent")
            #expect(try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550999", "token": "123456"]).status == 200)
            #expect(sms.sent.isEmpty)
        }
    }

    @Test("a phone factor's challenge goes to the hook as sms_type mfa and verifies; a failing hook is 500 error invoking hook")
    func phoneFactor() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        hook.set(.answer(status: 204, contentType: nil, body: ""))
        let hooked = Self.hooked(hook)
        try await PhoneFactorTests.withServer(configure: { hooked(&$0) }) { server, sms in
            let session = try await server.signUp("phone-mfa@example.com")
            let factorID = try await PhoneFactorTests.enroll(server, session.accessToken)
            let challengeID = try await PhoneFactorTests.challengeID(server, session.accessToken, factorID)
            let payload = try Self.lastSMS(hook)
            #expect(payload["sms_type"] as? String == "mfa" && payload["phone"] as? String == PhoneFactorTests.number)
            let code = try #require(payload["otp"] as? String)
            let verified = try await MFATests.verify(server, session.accessToken, factorID, challenge: challengeID, code: code)
            #expect(verified.status == 200, "\(verified.text)")
            #expect(sms.sent.isEmpty)

            hook.set(.answer(status: 200, contentType: "application/json", body: #"{"error": {"http_code": 403, "message": "No"}}"#))
            server.clock.advance(by: 61)
            let refused = try await PhoneFactorTests.challenge(server, session.accessToken, factorID)
            #expect(refused.status == 500 && refused["msg"] as? String == "error invoking hook", "\(refused.text)")
        }
    }

    @Test("a refusal is the hook's own error, garbage and a 500 are GoTrue's hook errors; each gives the SMS slot back")
    func failures() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await Self.withHookedPhoneServer(hook, configure: { $0.rateLimits.smsPerHour = .init(count: 1, per: 3600) }) { server, sms in
            hook.set(
                .answer(status: 200, contentType: "application/json", body: #"{"error": {"http_code": 403, "message": "No texts to that country"}}"#))
            let refused = try await server.request(.POST, "/otp", json: ["phone": "15555550123"])
            #expect(refused.status == 403 && refused["msg"] as? String == "No texts to that country", "\(refused.text)")
            hook.set(.answer(status: 200, contentType: "application/json", body: "{not json"))
            let garbage = try await server.request(.POST, "/otp", json: ["phone": "15555550123"])
            #expect(garbage.status == 500 && garbage.errorCode == "unexpected_failure", "\(garbage.text)")
            hook.set(.answer(status: 500, contentType: nil, body: ""))
            let failed = try await server.request(.POST, "/otp", json: ["phone": "15555550123"])
            #expect(failed.status == 500 && failed["msg"] as? String == "Unexpected status code returned from hook: 500", "\(failed.text)")
            // One SMS an hour: the slot came back after each failure, so this one goes out.
            hook.set(.answer(status: 204, contentType: nil, body: ""))
            let accepted = try await server.request(.POST, "/otp", json: ["phone": "15555550124"])
            #expect(accepted.status == 200, "\(accepted.text)")
            #expect(hook.requests.count == 4 && sms.sent.isEmpty)
        }
    }

    @Test("a hook that does not answer within its time limit is hook_timeout")
    func timeout() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await Self.withHookedPhoneServer(hook, configure: { $0.hooks.httpTimeout = 10 }) { server, _ in
            hook.set(.hang)
            let response = try await server.request(.POST, "/otp", json: ["phone": "15555550123"])
            #expect(response.status == 422 && response.errorCode == "hook_timeout", "\(response.text)")
        }
    }

    @Test("the hook replaces the provider: phone sign-in with no provider configured starts and sends through the hook")
    func noProviderNeeded() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        hook.set(.answer(status: 204, contentType: nil, body: ""))
        let hooked = Self.hooked(hook)
        try await TestServer.with(configure: {
            $0.phone.enabled = true
            hooked(&$0)
        }) { server in
            let sent = try await server.request(.POST, "/otp", json: ["phone": "15555550123"])
            #expect(sent.status == 200, "\(sent.text)")
            #expect(try Self.lastSMS(hook)["phone"] as? String == "15555550123")
        }
    }

    @Test("an absent or malformed secret, or a URI that is neither https nor a loopback http, refuses the start naming the setting")
    func configuration() throws {
        func refusal(_ change: (inout AuthHookSettings) -> Void) -> String? {
            hookConfigurationRefusal(\.sendSMS, uri: "https://hooks.example.com/sms", change)
        }
        #expect(refusal { _ in } == nil)
        #expect(refusal { $0.secrets = nil }?.contains("GOTRUE_HOOK_SEND_SMS_SECRETS") == true)
        #expect(refusal { $0.secrets = "whsec_abc" }?.contains("GOTRUE_HOOK_SEND_SMS_SECRETS") == true)
        #expect(refusal { $0.uri = "http://hooks.example.com/sms" }?.contains("hook-send-sms-uri") == true)
        #expect(refusal { $0.uri = "pg-functions://postgres/public/send_sms" }?.contains("PostgreSQL") == true)
    }
}
