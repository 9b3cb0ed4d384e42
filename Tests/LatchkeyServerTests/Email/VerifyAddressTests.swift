import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// `POST /verify` checks the address a code is redeemed for before any code is looked up, as
/// GoTrue's `VerifyParams.Validate`, whether or not phone sign-in is on.
@Suite("POST /verify address checks")
struct VerifyAddressTests {
    @Test("a malformed number with type sms or phone_change is 400 validation_failed (E.164), phone sign-in on or off")
    func malformedPhone() async throws {
        for phoneEnabled in [true, false] {
            try await TestServer.with(configure: { $0.phone.enabled = phoneEnabled }) { server in
                for type in ["sms", "phone_change"] {
                    for phone in ["1", "+0123456789", "555-0100 call me", "1234567890123456"] {
                        let answer = try await server.request(.POST, "/verify", json: ["type": type, "phone": phone, "token": "123456"])
                        answer.expectError(400, "validation_failed")
                        #expect(
                            answer["msg"] as? String == "Invalid phone number format (E.164 required)",
                            "phone sign-in \(phoneEnabled), \(type), \(phone): \(answer.text)")
                    }
                }
                // A well-formed number with no code sent is still the token's answer.
                let wellFormed = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550100", "token": "123456"])
                #expect(wellFormed.status == 403 && wellFormed.errorCode == "otp_expired", "\(wellFormed.text)")
            }
        }
    }

    @Test("a malformed email with a code is 422 validation_failed \"Invalid email format\" before the token is looked up")
    func malformedEmail() async throws {
        try await TestServer.with { server in
            for type in ["email", "signup", "magiclink", "recovery", "invite", "email_change"] {
                let answer = try await server.request(.POST, "/verify", json: ["type": type, "email": "not-an-address", "token": "123456"])
                answer.expectError(422, "validation_failed")
                #expect(answer["msg"] as? String == "Invalid email format", "\(type): \(answer.text)")
            }
            let wellFormed = try await server.request(.POST, "/verify", json: ["type": "email", "email": "nobody@example.com", "token": "123456"])
            #expect(wellFormed.status == 403 && wellFormed.errorCode == "otp_expired", "\(wellFormed.text)")
        }
    }
}
