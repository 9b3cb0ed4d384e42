import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// Phone as a second factor end to end: enrolment with `phone`, challenges that send a code by
/// SMS through a recording sender, verification to `aal2`, and the attacks on each step.
@Suite("MFA (phone)")
struct PhoneFactorTests {
    static let number = "15555550100"

    static func withServer<T: Sendable>(
        configure: @escaping (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestServer, RecordingSMSSender) async throws -> T
    ) async throws -> T {
        let sender = RecordingSMSSender()
        return try await TestServer.with(
            smsSender: sender,
            configure: { configuration in
                MFATests.roomy(&configuration)
                configuration.mfa.phoneEnrollEnabled = true
                configuration.mfa.phoneVerifyEnabled = true
                configure(&configuration)
            }
        ) { server in try await body(server, sender) }
    }

    static func enroll(_ server: TestServer, _ bearer: String, phone: String = "+1 555 555 0100", name: String = "my phone") async throws -> String {
        let response = try await server.request(
            .POST, "/factors", json: ["factor_type": "phone", "phone": phone, "friendly_name": name], bearer: bearer)
        guard response.status == 200, let id = response["id"] as? String else {
            throw TestFailure("enroll failed: \(response.status) \(response.text)")
        }
        return id
    }

    static func challenge(_ server: TestServer, _ bearer: String, _ factorID: String, json: [String: any Sendable] = [:]) async throws -> TestResponse
    {
        try await server.request(.POST, "/factors/\(factorID)/challenge", json: json, bearer: bearer)
    }

    static func challengeID(_ server: TestServer, _ bearer: String, _ factorID: String) async throws -> String {
        let response = try await challenge(server, bearer, factorID)
        guard response.status == 200, let id = response["id"] as? String else {
            throw TestFailure("challenge failed: \(response.status) \(response.text)")
        }
        return id
    }

    /// A code of the configured length that is not `code`.
    static func wrong(_ code: String) -> String {
        code.first == "0" ? "1" + code.dropFirst() : "0" + code.dropFirst()
    }

    @Test("enroll, challenge by SMS, verify: the session becomes aal2 with mfa/phone in amr; the factor shows its number")
    func enrollChallengeVerify() async throws {
        try await Self.withServer(configure: {
            $0.mfa.phoneCodeLength = 8
            $0.mfa.phoneTemplate = "Latchkey: {{ .Code }} is your code"
        }) { server, sms in
            let session = try await server.signUp("phone-mfa@example.com")
            let enrolled = try await server.request(
                .POST, "/factors", json: ["factor_type": "phone", "phone": "+1 555 555 0100", "friendly_name": "mine"], bearer: session.accessToken)
            #expect(enrolled.status == 200, "\(enrolled.text)")
            #expect(enrolled["type"] as? String == "phone")
            #expect(enrolled["phone"] as? String == "+1 555 555 0100", "GoTrue answers the number as given")
            #expect(enrolled["totp"] == nil)
            let factorID = try #require(enrolled["id"] as? String)
            #expect(sms.sent.isEmpty, "enrolling sends nothing")

            let challenge = try await Self.challenge(server, session.accessToken, factorID)
            #expect(challenge.status == 200, "\(challenge.text)")
            #expect(challenge["type"] as? String == "phone")
            #expect(challenge["expires_at"] as? Int == Int(server.clock.now().timeIntervalSince1970) + 300)
            let challengeID = try #require(challenge["id"] as? String)
            let message = try #require(sms.sent.last)
            #expect(message.to == Self.number && message.channel == .sms)
            #expect(message.code.count == 8 && message.code.allSatisfy(\.isNumber))
            #expect(message.body == "Latchkey: \(message.code) is your code")

            let verified = try await MFATests.verify(server, session.accessToken, factorID, challenge: challengeID, code: message.code)
            #expect(verified.status == 200, "\(verified.text)")
            let raised = try #require(TestSession(verified))
            #expect(try MFATests.claims(raised.accessToken)["aal"] as? String == "aal2")
            #expect(try MFATests.methods(raised.accessToken).contains("mfa/phone"))
            let factors = try await MFATests.factors(server, raised.accessToken)
            #expect(factors.count == 1)
            #expect(factors.first?["status"] as? String == "verified")
            #expect(factors.first?["factor_type"] as? String == "phone")
            #expect(factors.first?["phone"] as? String == Self.number)
            #expect(try await server.refresh(raised.refreshToken).status == 200)

            // A new sign-in is aal1 until the phone's code is verified again.
            let again = try #require(TestSession(try await server.signIn("phone-mfa@example.com")))
            #expect(try MFATests.claims(again.accessToken)["aal"] as? String == "aal1")
            server.clock.advance(by: 61)
            let second = try await Self.challengeID(server, again.accessToken, factorID)
            let stepUp = try await MFATests.verify(server, again.accessToken, factorID, challenge: second, code: try sms.code(to: Self.number))
            #expect(stepUp.status == 200, "\(stepUp.text)")
        }
    }

    @Test("a wrong code, a code of another challenge, a spent code and an expired challenge are refused")
    func refusedCodes() async throws {
        try await Self.withServer { server, sms in
            let session = try await server.signUp("codes@example.com")
            let factorID = try await Self.enroll(server, session.accessToken)
            let first = try await Self.challengeID(server, session.accessToken, factorID)
            let firstCode = try sms.code(to: Self.number)

            let wrong = try await MFATests.verify(server, session.accessToken, factorID, challenge: first, code: Self.wrong(firstCode))
            #expect(wrong.status == 422 && wrong.errorCode == "mfa_verification_failed")
            #expect(wrong["msg"] as? String == "Invalid MFA Phone code entered")

            // The first challenge's code does not verify a second challenge.
            server.clock.advance(by: 61)
            let second = try await Self.challengeID(server, session.accessToken, factorID)
            let secondCode = try sms.code(to: Self.number)
            if secondCode != firstCode {
                let crossed = try await MFATests.verify(server, session.accessToken, factorID, challenge: second, code: firstCode)
                #expect(crossed.status == 422 && crossed.errorCode == "mfa_verification_failed")
            }

            let ok = try await MFATests.verify(server, session.accessToken, factorID, challenge: second, code: secondCode)
            #expect(ok.status == 200, "\(ok.text)")
            let raised = try #require(TestSession(ok))
            let replay = try await MFATests.verify(server, raised.accessToken, factorID, challenge: second, code: secondCode)
            #expect(replay.status == 422 && replay.errorCode == "mfa_ip_address_mismatch", "a spent challenge is refused as GoTrue does")

            server.clock.advance(by: 61)
            let third = try await Self.challengeID(server, raised.accessToken, factorID)
            let thirdCode = try sms.code(to: Self.number)
            server.clock.advance(by: 301)
            let expired = try await MFATests.verify(server, raised.accessToken, factorID, challenge: third, code: thirdCode)
            #expect(expired.status == 422 && expired.errorCode == "mfa_challenge_expired")
            let gone = try await MFATests.verify(server, raised.accessToken, factorID, challenge: third, code: thirdCode)
            #expect(gone.status == 422 && gone.errorCode == "mfa_factor_not_found", "an expired challenge is deleted")
        }
    }

    @Test("guessing: after five wrong codes even the right one is refused; codes are never in the audit log or the database")
    func guessedCodes() async throws {
        try await Self.withServer { server, sms in
            let session = try await server.signUp("guess-phone@example.com")
            let factorID = try await Self.enroll(server, session.accessToken)
            let challengeID = try await Self.challengeID(server, session.accessToken, factorID)
            let code = try sms.code(to: Self.number)
            for _ in 0..<5 {
                let guess = try await MFATests.verify(server, session.accessToken, factorID, challenge: challengeID, code: Self.wrong(code))
                #expect(guess.status == 422)
            }
            let locked = try await MFATests.verify(server, session.accessToken, factorID, challenge: challengeID, code: code)
            #expect(locked.status == 429, "the factor is locked after too many wrong codes: \(locked.text)")

            let entries = try await server.request(.GET, "/admin/audit", bearer: server.server.serviceRoleKey).jsonArray ?? []
            let text = String(decoding: try JSONSerialization.data(withJSONObject: entries), as: UTF8.self)
            #expect(!text.contains(code) && !text.contains(Self.wrong(code)), "codes are not audited")
            let path = server.directory.appendingPathComponent("latchkey.sqlite").path
            var bytes = Data()
            for suffix in ["", "-wal"] { bytes += FileManager.default.contents(atPath: path + suffix) ?? Data() }
            #expect(bytes.range(of: Data(code.utf8)) == nil, "the code is stored hashed")
        }
    }

    @Test("another user can neither challenge nor verify the factor, nor use a code sent to it")
    func otherUsers() async throws {
        try await Self.withServer { server, sms in
            let alice = try await server.signUp("alice-phone@example.com")
            let factorID = try await Self.enroll(server, alice.accessToken)
            let mallory = try await server.signUp("mallory-phone@example.com")
            let foreign = try await Self.challenge(server, mallory.accessToken, factorID)
            #expect(foreign.status == 404 && foreign.errorCode == "mfa_factor_not_found")
            #expect(sms.sent.isEmpty)

            let challengeID = try await Self.challengeID(server, alice.accessToken, factorID)
            let code = try sms.code(to: Self.number)
            let stolen = try await MFATests.verify(server, mallory.accessToken, factorID, challenge: challengeID, code: code)
            #expect(stolen.status == 404 && stolen.errorCode == "mfa_factor_not_found")

            // Mallory's own factor of the same number: Alice's challenge and code do not verify it.
            let malloryFactor = try await Self.enroll(server, mallory.accessToken)
            let crossed = try await MFATests.verify(server, mallory.accessToken, malloryFactor, challenge: challengeID, code: code)
            #expect(crossed.status == 422 && crossed.errorCode == "mfa_factor_not_found")
            let own = try await MFATests.verify(server, alice.accessToken, factorID, challenge: challengeID, code: code)
            #expect(own.status == 200, "\(own.text)")
        }
    }

    @Test("enrolment: number required and E.164; an unverified factor of the number is replaced, a verified one refused; off is GoTrue's 422")
    func enrolmentRules() async throws {
        try await Self.withServer { server, sms in
            let session = try await server.signUp("enrol-phone@example.com")
            let missing = try await server.request(.POST, "/factors", json: ["factor_type": "phone"], bearer: session.accessToken)
            #expect(missing.status == 400 && missing.errorCode == "validation_failed")
            #expect(missing["msg"] as? String == "Phone number required to enroll Phone factor")
            let invalid = try await server.request(.POST, "/factors", json: ["factor_type": "phone", "phone": "+0123"], bearer: session.accessToken)
            #expect(invalid.status == 400 && invalid["msg"] as? String == "Invalid phone number format (E.164 required)")

            // An unverified factor of the same number is replaced: its challenge no longer verifies.
            let first = try await Self.enroll(server, session.accessToken, name: "first")
            let oldChallenge = try await Self.challengeID(server, session.accessToken, first)
            let oldCode = try sms.code(to: Self.number)
            let second = try await Self.enroll(server, session.accessToken, name: "second")
            #expect(try await MFATests.factors(server, session.accessToken).map { $0["id"] as? String } == [second])
            let stale = try await MFATests.verify(server, session.accessToken, first, challenge: oldChallenge, code: oldCode)
            #expect(stale.status == 404 && stale.errorCode == "mfa_factor_not_found")
            // The unverified factor does not make sign-ins ask for a second factor.
            let signIn = try #require(TestSession(try await server.signIn("enrol-phone@example.com")))
            #expect(try MFATests.claims(signIn.accessToken)["aal"] as? String == "aal1")

            let challengeID = try await Self.challengeID(server, session.accessToken, second)
            let verified = try await MFATests.verify(
                server, session.accessToken, second, challenge: challengeID, code: try sms.code(to: Self.number))
            let raised = try #require(TestSession(verified))
            let duplicate = try await server.request(
                .POST, "/factors", json: ["factor_type": "phone", "phone": "+15555550100", "friendly_name": "third"], bearer: raised.accessToken)
            #expect(duplicate.status == 422 && duplicate.errorCode == "mfa_verified_factor_exists")
        }
        try await Self.withServer(configure: { $0.mfa.phoneVerifyEnabled = false }) { server, sms in
            let session = try await server.signUp("verify-off@example.com")
            let factorID = try await Self.enroll(server, session.accessToken)
            let challenge = try await Self.challenge(server, session.accessToken, factorID)
            #expect(challenge.status == 422 && challenge.errorCode == "mfa_phone_verify_not_enabled")
            let verify = try await MFATests.verify(server, session.accessToken, factorID, challenge: UUID().uuidString, code: "123456")
            #expect(verify.status == 422 && verify.errorCode == "mfa_phone_verify_not_enabled")
            #expect(sms.sent.isEmpty)
        }
    }

    @Test("one challenge per factor per max frequency (429); WhatsApp is a channel; a failed send is 500 and can be retried at once")
    func frequencyChannelsAndFailures() async throws {
        try await Self.withServer(configure: { $0.mfa.phoneMaxFrequency = 30 }) { server, sms in
            let session = try await server.signUp("frequency-phone@example.com")
            let factorID = try await Self.enroll(server, session.accessToken)

            sms.fail(true)
            let failed = try await Self.challenge(server, session.accessToken, factorID)
            #expect(failed.status == 500 && failed["msg"] as? String == "error sending message", "\(failed.text)")
            #expect(!failed.text.contains("refused"), "the provider's error stays in the log")
            sms.fail(false)

            #expect(try await Self.challenge(server, session.accessToken, factorID).status == 200, "a failed send does not count")
            let tooSoon = try await Self.challenge(server, session.accessToken, factorID)
            #expect(tooSoon.status == 429 && tooSoon.errorCode == "over_sms_send_rate_limit")
            #expect((tooSoon["msg"] as? String)?.hasPrefix("For security purposes, you can only request this after") == true)
            #expect(sms.sent.count == 1)

            server.clock.advance(by: 31)
            let whatsapp = try await Self.challenge(server, session.accessToken, factorID, json: ["channel": "whatsapp"])
            #expect(whatsapp.status == 200, "\(whatsapp.text)")
            #expect(sms.sent.last?.channel == .whatsapp)
            server.clock.advance(by: 31)
            let pigeon = try await Self.challenge(server, session.accessToken, factorID, json: ["channel": "pigeon"])
            #expect(pigeon.status == 400 && pigeon.errorCode == "validation_failed")
        }
    }
}
