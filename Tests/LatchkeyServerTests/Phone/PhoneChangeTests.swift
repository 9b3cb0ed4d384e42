import Foundation
import Testing

@testable import LatchkeyServer

/// `PUT /user {phone}`, `POST /verify` type `phone_change` and `POST /resend` types `sms` and
/// `phone_change`.
@Suite("Phone change and resend")
struct PhoneChangeTests {
    @Test("a new number waits as new_phone until its code is verified as phone_change; a sign-in code type does not apply it")
    func changeNumber() async throws {
        try await PhoneSignInTests.withPhoneServer { server, sms in
            let session = try await server.signUp("ada@example.com")
            let updated = try await server.request(.PUT, "/user", json: ["phone": "+15555550123"], bearer: session.accessToken)
            #expect(updated.status == 200, "\(updated.text)")
            #expect(updated["new_phone"] as? String == "15555550123")
            #expect(updated["phone"] as? String == "")
            #expect(updated["phone_change_sent_at"] is String)
            let code = try sms.code(to: "15555550123")

            let asSignIn = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": code])
            #expect(asSignIn.status == 403 && asSignIn.errorCode == "otp_expired")
            let verified = try await server.request(.POST, "/verify", json: ["type": "phone_change", "phone": "15555550123", "token": code])
            #expect(verified.status == 200, "\(verified.text)")
            let user = try #require(verified["user"] as? [String: Any])
            #expect(user["phone"] as? String == "15555550123")
            #expect(user["new_phone"] == nil)
            #expect(user["email"] as? String == "ada@example.com")
            #expect((user["app_metadata"] as? [String: Any])?["providers"] as? [String] == ["email", "phone"])
            let reused = try await server.request(.POST, "/verify", json: ["type": "phone_change", "phone": "15555550123", "token": code])
            #expect(reused.status == 403)
        }
    }

    @Test("a number another user has is 422 phone_exists, and nothing is sent")
    func takenNumber() async throws {
        try await PhoneSignInTests.withPhoneServer { server, sms in
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123"]).status == 200)
            let session = try await server.signUp("ada@example.com")
            let taken = try await server.request(.PUT, "/user", json: ["phone": "15555550123"], bearer: session.accessToken)
            #expect(taken.status == 422 && taken.errorCode == "phone_exists")
            #expect(sms.sent.count == 1)
            let bad = try await server.request(.PUT, "/user", json: ["phone": "0123"], bearer: session.accessToken)
            #expect(bad.status == 400 && bad.errorCode == "validation_failed")
        }
    }

    @Test("with phone sign-in off a new number is phone_provider_disabled")
    func disabled() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("ada@example.com")
            let refused = try await server.request(.PUT, "/user", json: ["phone": "15555550123"], bearer: session.accessToken)
            #expect(refused.status == 400 && refused.errorCode == "phone_provider_disabled")
        }
    }

    @Test("/resend sms sends an unconfirmed sign-up a new code, answers {} for a confirmed or unknown number")
    func resend() async throws {
        try await PhoneSignInTests.withPhoneServer { server, sms in
            _ = try await server.request(.POST, "/signup", json: ["phone": "15555550123", "password": "phone password 1"])
            let tooSoon = try await server.request(.POST, "/resend", json: ["type": "sms", "phone": "15555550123"])
            #expect(tooSoon.status == 429 && tooSoon.errorCode == "over_sms_send_rate_limit")
            server.clock.advance(by: 61)
            let resent = try await server.request(.POST, "/resend", json: ["type": "sms", "phone": "+15555550123"])
            #expect(resent.status == 200 && resent.json.isEmpty)
            #expect(sms.sent.count == 2)
            let code = try sms.code(to: "15555550123")
            #expect(try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": code]).status == 200)
            server.clock.advance(by: 61)
            let confirmed = try await server.request(.POST, "/resend", json: ["type": "sms", "phone": "15555550123"])
            let unknown = try await server.request(.POST, "/resend", json: ["type": "sms", "phone": "15555550999"])
            #expect(confirmed.status == 200 && unknown.status == 200 && confirmed.text == unknown.text)
            #expect(sms.sent.count == 2)
        }
    }

    @Test("/resend phone_change sends the pending number's code again")
    func resendPhoneChange() async throws {
        try await PhoneSignInTests.withPhoneServer { server, sms in
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123"]).status == 200)
            let signIn = try await server.request(
                .POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": try sms.code(to: "15555550123")])
            let session = try #require(TestSession(signIn))
            _ = try await server.request(.PUT, "/user", json: ["phone": "15555550124"], bearer: session.accessToken)
            server.clock.advance(by: 61)
            let resent = try await server.request(.POST, "/resend", json: ["type": "phone_change", "phone": "15555550123"])
            #expect(resent.status == 200)
            #expect(sms.sent.map(\.to) == ["15555550123", "15555550124", "15555550124"])
            let code = try sms.code(to: "15555550124")
            let verified = try await server.request(.POST, "/verify", json: ["type": "phone_change", "phone": "15555550124", "token": code])
            #expect((verified["user"] as? [String: Any])?["phone"] as? String == "15555550124")
        }
    }
}
