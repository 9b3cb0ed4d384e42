import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// Phone sign-in over SMS end to end: `/otp`, `/signup`, `/verify` types `sms`, the password
/// grant with `phone`, against the in-process server with a recording SMS sender.
@Suite("Phone sign-in")
struct PhoneSignInTests {
    static func withPhoneServer<T: Sendable>(
        sender: RecordingSMSSender = RecordingSMSSender(), configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestServer, RecordingSMSSender) async throws -> T
    ) async throws -> T {
        try await TestServer.with(
            smsSender: sender,
            configure: { configuration in
                configuration.phone.enabled = true
                configure(&configuration)
            }
        ) { server in try await body(server, sender) }
    }

    @Test("/otp sends a code to a new number, /verify sms signs in and confirms it, and the session refreshes")
    func otpThenVerify() async throws {
        try await Self.withPhoneServer { server, sms in
            let sent = try await server.request(.POST, "/otp", json: ["phone": "+1 555 555 0123", "data": ["plan": "free"]])
            #expect(sent.status == 200, "\(sent.text)")
            #expect(sent.json.isEmpty)
            let message = try #require(sms.sent.last)
            #expect(message.to == "15555550123")
            #expect(message.channel == .sms)
            #expect(message.code.count == 6 && message.code.allSatisfy(\.isNumber))
            #expect(message.body == "Your code is \(message.code)")

            let verified = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": message.code])
            #expect(verified.status == 200, "\(verified.text)")
            let session = try #require(TestSession(verified))
            let user = try #require(verified["user"] as? [String: Any])
            #expect(user["phone"] as? String == "15555550123")
            #expect(user["phone_confirmed_at"] is String)
            #expect((user["user_metadata"] as? [String: Any])?["plan"] as? String == "free")
            #expect((user["app_metadata"] as? [String: Any])?["provider"] as? String == "phone")
            #expect(try await server.refresh(session.refreshToken).status == 200)
            let me = try await server.request(.GET, "/user", bearer: session.accessToken)
            #expect(me["phone"] as? String == "15555550123")
        }
    }

    @Test("a second code within the maximum frequency is 429 over_sms_send_rate_limit; WhatsApp is a channel")
    func maximumFrequency() async throws {
        try await Self.withPhoneServer { server, sms in
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123"]).status == 200)
            let again = try await server.request(.POST, "/otp", json: ["phone": "15555550123"])
            #expect(again.status == 429)
            #expect(again.errorCode == "over_sms_send_rate_limit")
            #expect(sms.sent.count == 1)
            server.clock.advance(by: 61)
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123", "channel": "whatsapp"]).status == 200)
            #expect(sms.sent.last?.channel == .whatsapp)
            let bad = try await server.request(.POST, "/otp", json: ["phone": "15555550123", "channel": "pigeon"])
            #expect(bad.status == 400 && bad.errorCode == "validation_failed")
        }
    }

    @Test("a wrong code is 403 otp_expired, and after ten the right one is refused too")
    func guessedCode() async throws {
        try await Self.withPhoneServer { server, sms in
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123"]).status == 200)
            let code = try sms.code(to: "15555550123")
            let wrong = code == "000000" ? "111111" : "000000"
            for _ in 0..<10 {
                let guess = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": wrong])
                #expect(guess.status == 403)
                #expect(guess.errorCode == "otp_expired")
                #expect(guess["msg"] as? String == "Token has expired or is invalid")
            }
            let right = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": code])
            #expect(right.status == 429, "the number is locked after ten wrong codes: \(right.text)")
        }
    }

    @Test("a code works only for the number it was sent to, only once, and only before it expires")
    func codeBoundToNumberOnceAndExpiring() async throws {
        try await Self.withPhoneServer { server, sms in
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123"]).status == 200)
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550124"]).status == 200)
            let codeA = try sms.code(to: "15555550123")
            let codeB = try sms.code(to: "15555550124")
            if codeA != codeB {
                let crossed = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550124", "token": codeA])
                #expect(crossed.status == 403 && crossed.errorCode == "otp_expired")
            }
            let first = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": codeA])
            #expect(first.status == 200)
            let reused = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": codeA])
            #expect(reused.status == 403 && reused.errorCode == "otp_expired")
            // As phone_change, a sign-in code is no good either.
            server.clock.advance(by: 61)
            let expired = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550124", "token": codeB])
            #expect(expired.status == 403 && expired.errorCode == "otp_expired")
        }
    }

    @Test("sign-up with phone and password sends a code; the password grant needs the number confirmed")
    func signUpThenPasswordGrant() async throws {
        try await Self.withPhoneServer { server, sms in
            let signedUp = try await server.request(.POST, "/signup", json: ["phone": "+447700900123", "password": "phone password 1"])
            #expect(signedUp.status == 200, "\(signedUp.text)")
            #expect(signedUp["access_token"] == nil)
            #expect(signedUp["phone"] as? String == "447700900123")
            #expect(signedUp["confirmation_sent_at"] is String)
            let early = try await server.request(
                .POST, "/token?grant_type=password", json: ["phone": "+447700900123", "password": "phone password 1"])
            #expect(early.status == 400 && early.errorCode == "phone_not_confirmed")

            let code = try sms.code(to: "447700900123")
            #expect(try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "447700900123", "token": code]).status == 200)
            let signedIn = try await server.request(
                .POST, "/token?grant_type=password", json: ["phone": "+447700900123", "password": "phone password 1"])
            #expect(signedIn.status == 200, "\(signedIn.text)")
            let wrong = try await server.request(
                .POST, "/token?grant_type=password", json: ["phone": "447700900123", "password": "wrong password 1"])
            #expect(wrong.status == 400 && wrong.errorCode == "invalid_credentials")
            let unknown = try await server.request(
                .POST, "/token?grant_type=password", json: ["phone": "447700900999", "password": "phone password 1"])
            #expect(unknown.status == 400 && unknown.errorCode == "invalid_credentials")
        }
    }

    @Test("signing up again with a confirmed number answers like a new sign-up and sends nothing")
    func existingNumberNotRevealed() async throws {
        try await Self.withPhoneServer { server, sms in
            _ = try await server.request(.POST, "/signup", json: ["phone": "15555550123", "password": "phone password 1"])
            let code = try sms.code(to: "15555550123")
            let verified = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": code])
            let realID = try #require((verified["user"] as? [String: Any])?["id"] as? String)
            let sentBefore = sms.sent.count

            let again = try await server.request(.POST, "/signup", json: ["phone": "15555550123", "password": "other password 2"])
            let fresh = try await server.request(.POST, "/signup", json: ["phone": "15555550777", "password": "other password 2"])
            #expect(again.status == fresh.status)
            #expect(Set(again.json.keys) == Set(fresh.json.keys))
            #expect(again["id"] as? String != realID)
            #expect(again["phone"] as? String == "15555550123")
            #expect(sms.sent.count == sentBefore + 1, "only the new number got a code")
            let still = try await server.request(.POST, "/token?grant_type=password", json: ["phone": "15555550123", "password": "phone password 1"])
            #expect(still.status == 200, "the account was not changed")
        }
    }

    @Test("malformed numbers are refused with GoTrue's 400 on /otp, /signup and /verify, and nothing is sent")
    func malformedNumbers() async throws {
        try await Self.withPhoneServer { server, sms in
            for bad in ["0123456789", "+", "12345678901234567", "1555-555-0100", "(555) 5550100", "++15555550100", "phone"] {
                for (path, body) in [
                    ("/otp", ["phone": bad] as [String: any Sendable]), ("/signup", ["phone": bad, "password": "phone password 1"]),
                    ("/verify", ["type": "sms", "phone": bad, "token": "123456"]),
                ] {
                    let response = try await server.request(.POST, path, json: body)
                    #expect(response.status == 400, "\(path) \(bad)")
                    #expect(response["msg"] as? String == "Invalid phone number format (E.164 required)", "\(path) \(bad)")
                }
            }
            #expect(sms.sent.isEmpty)
        }
    }

    @Test("create_user false with an unknown number answers {} and sends nothing; a known one gets its code")
    func createUserFalse() async throws {
        try await Self.withPhoneServer { server, sms in
            let unknown = try await server.request(.POST, "/otp", json: ["phone": "15555550123", "create_user": false])
            #expect(unknown.status == 200 && unknown.json.isEmpty)
            #expect(sms.sent.isEmpty)
            _ = try await server.request(.POST, "/otp", json: ["phone": "15555550124"])
            server.clock.advance(by: 61)
            let known = try await server.request(.POST, "/otp", json: ["phone": "15555550124", "create_user": false])
            #expect(known.status == 200 && known.json.isEmpty)
            #expect(sms.sent.count == 2)

            // Asked again at once, both are refused alike: the answer never tells which number
            // has an account. After the interval both are answered again.
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123", "create_user": false]).status == 200)
            let knownAgain = try await server.request(.POST, "/otp", json: ["phone": "15555550124", "create_user": false])
            let unknownAgain = try await server.request(.POST, "/otp", json: ["phone": "15555550123", "create_user": false])
            #expect(knownAgain.status == 429 && unknownAgain.status == 429, "\(knownAgain.text) \(unknownAgain.text)")
            #expect(knownAgain.errorCode == "over_sms_send_rate_limit" && unknownAgain.errorCode == knownAgain.errorCode)
            let waits = [knownAgain, unknownAgain].compactMap { $0.headers.first(name: "Retry-After").flatMap(Int.init) }
            #expect(waits.count == 2 && abs(waits[0] - waits[1]) <= 1, "\(waits)")
            server.clock.advance(by: 61)
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123", "create_user": false]).status == 200)
            #expect(sms.sent.count == 2)
        }
    }

    @Test("once the server's SMS limit is spent, /otp and /resend refuse a number that would get no code as they refuse one that would")
    func spentLimitNotRevealing() async throws {
        try await Self.withPhoneServer(configure: { $0.rateLimits.smsPerHour = .init(count: 1, per: 3600) }) { server, sms in
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550124"]).status == 200)
            #expect(sms.sent.count == 1, "the server's one SMS of the hour")
            server.clock.advance(by: 61)
            let known = try await server.request(.POST, "/otp", json: ["phone": "15555550124", "create_user": false])
            let unknown = try await server.request(.POST, "/otp", json: ["phone": "15555550123", "create_user": false])
            #expect(known.status == 429 && known.errorCode == "over_sms_send_rate_limit", "\(known.text)")
            #expect(unknown.status == known.status && unknown.errorCode == known.errorCode, "\(unknown.text)")
            let resendKnown = try await server.request(.POST, "/resend", json: ["type": "sms", "phone": "15555550124"])
            let resendUnknown = try await server.request(.POST, "/resend", json: ["type": "sms", "phone": "15555550125"])
            #expect(resendKnown.status == 429 && resendUnknown.status == 429, "\(resendKnown.text) \(resendUnknown.text)")
            #expect(resendKnown.errorCode == resendUnknown.errorCode)
            #expect(sms.sent.count == 1)
            // Checking the limit for a message never sent spends none of it: an hour later one SMS goes out again.
            server.clock.advance(by: 3600)
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550124"]).status == 200)
            #expect(sms.sent.count == 2)
        }
    }

    @Test("/resend and a repeated sign-up are limited alike for a number with an account and one without")
    func repeatsNotRevealing() async throws {
        try await Self.withPhoneServer { server, sms in
            // A confirmed number signed up again, and a fresh one, twice each at once.
            _ = try await server.request(.POST, "/signup", json: ["phone": "15555550123", "password": "phone password 1"])
            let code = try sms.code(to: "15555550123")
            #expect(try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": code]).status == 200)
            server.clock.advance(by: 61)
            var statuses: [String: [Int]] = [:]
            for phone in ["15555550123", "15555550777"] {
                for _ in 0..<2 {
                    statuses[phone, default: []].append(
                        try await server.request(.POST, "/signup", json: ["phone": phone, "password": "other password 2"]).status)
                }
            }
            #expect(statuses["15555550123"] == [200, 429] && statuses["15555550777"] == statuses["15555550123"], "\(statuses)")

            // /resend for an unconfirmed number (the fresh one, once its interval passed), for a
            // confirmed one and for one with no account: the same answers.
            server.clock.advance(by: 61)
            var resends: [String: [Int]] = [:]
            for phone in ["15555550777", "15555550123", "15555550999"] {
                for _ in 0..<2 {
                    resends[phone, default: []].append(try await server.request(.POST, "/resend", json: ["type": "sms", "phone": phone]).status)
                }
            }
            #expect(Set(resends.values).count == 1 && resends["15555550777"] == [200, 429], "\(resends)")
        }
    }

    @Test("a banned user's code signs nobody in (403 user_banned), and a banned number is sent nothing")
    func bannedNumber() async throws {
        try await Self.withPhoneServer { server, sms in
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123"]).status == 200)
            let code = try sms.code(to: "15555550123")
            let users = try await server.request(.GET, "/admin/users", bearer: server.server.serviceRoleKey)
            let id = try #require(((users["users"] as? [[String: Any]])?.first)?["id"] as? String)
            let ban = try await server.request(.PUT, "/admin/users/\(id)", json: ["ban_duration": "1h"], bearer: server.server.serviceRoleKey)
            #expect(ban.status == 200, "\(ban.text)")
            let refused = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": code])
            #expect(refused.status == 403 && refused.errorCode == "user_banned" && refused["access_token"] == nil, "\(refused.text)")
            server.clock.advance(by: 61)
            let sentBefore = sms.sent.count
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123"]).status == 200)
            #expect(sms.sent.count == sentBefore, "a banned number is sent no code")
        }
    }

    @Test("with a verified factor, a new number needs an aal2 session (401 insufficient_aal), as a new password or address does")
    func phoneChangeNeedsAAL2() async throws {
        try await Self.withPhoneServer(configure: { MFATests.roomy(&$0) }) { server, sms in
            let session = try await server.signUp("aal@example.com")
            _ = try await MFATests.enrollAndVerify(server, session)
            let low = try #require(TestSession(try await server.signIn("aal@example.com")))
            let refused = try await server.request(.PUT, "/user", json: ["phone": "15555550188"], bearer: low.accessToken)
            #expect(refused.status == 401 && refused.errorCode == "insufficient_aal", "\(refused.text)")
            #expect(sms.sent.isEmpty)
        }
    }

    @Test("a test number gets its fixed code and no SMS, until SMS_TEST_OTP_VALID_UNTIL")
    func testNumbers() async throws {
        try await Self.withPhoneServer(configure: {
            $0.phone.testCodes = "+15555550100:123456, 15555550101=654321"
            $0.phone.testCodesValidUntil = "2100-01-01T00:00:00Z"
        }) { (server: TestServer, sms: RecordingSMSSender) async throws in
            #expect(try await server.request(.POST, "/otp", json: ["phone": "+15555550100"]).status == 200)
            #expect(sms.sent.isEmpty)
            let wrong = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550100", "token": "654321"])
            #expect(wrong.status == 403)
            let verified = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "+15555550100", "token": "123456"])
            #expect(verified.status == 200, "\(verified.text)")
        }
        try await Self.withPhoneServer(configure: {
            $0.phone.testCodes = "15555550100:123456"
            $0.phone.testCodesValidUntil = "2000-01-01T00:00:00Z"
        }) { (server: TestServer, sms: RecordingSMSSender) async throws in
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550100"]).status == 200)
            #expect(sms.sent.count == 1, "past its date a test number gets a real code")
            #expect(try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550100", "token": "123456"]).status == 403)
        }
    }

    @Test("a refused send is 422 sms_send_failed, keeps no sign-up and gives the SMS slot back")
    func failedSend() async throws {
        let sender = RecordingSMSSender()
        try await Self.withPhoneServer(sender: sender, configure: { $0.rateLimits.smsPerHour = .init(count: 1, per: 3600) }) {
            (server: TestServer, sms: RecordingSMSSender) async throws in
            sms.fail(true)
            let failed = try await server.request(.POST, "/signup", json: ["phone": "15555550123", "password": "phone password 1"])
            #expect(failed.status == 422)
            #expect(failed.errorCode == "sms_send_failed")
            #expect(failed["msg"] as? String == "Error sending confirmation OTP to provider: the provider refused the message")
            #expect(try await server.request(.GET, "/admin/users", bearer: server.server.serviceRoleKey).headers.first(name: "X-Total-Count") == "0")
            sms.fail(false)
            let retried = try await server.request(.POST, "/signup", json: ["phone": "15555550123", "password": "phone password 1"])
            #expect(retried.status == 200, "the failed send's slot was given back: \(retried.text)")
            server.clock.advance(by: 61)
            let over = try await server.request(.POST, "/otp", json: ["phone": "15555550123"])
            #expect(over.status == 429 && over.errorCode == "over_sms_send_rate_limit")
        }
    }

    @Test("/otp for a new number whose code is refused keeps no account, so /resend for it answers {} as for any unknown number (GoTrue)")
    func failedSendOnOTP() async throws {
        try await Self.withPhoneServer { server, sms in
            sms.fail(true)
            let failed = try await server.request(.POST, "/otp", json: ["phone": "15555550123"])
            #expect(failed.status == 422 && failed.errorCode == "sms_send_failed", "\(failed.text)")
            let users = try await server.request(.GET, "/admin/users", bearer: server.server.serviceRoleKey)
            #expect(users.headers.first(name: "X-Total-Count") == "0", "no account is left behind: \(users.text)")
            // With no account, /resend has nothing to send and answers {} (with one, it would
            // try the unconfirmed number's code again and fail with the provider).
            let resent = try await server.request(.POST, "/resend", json: ["type": "sms", "phone": "15555550123"])
            #expect(resent.status == 200, "\(resent.text)")
            #expect(sms.sent.isEmpty)
            sms.fail(false)
            server.clock.advance(by: 61)
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123"]).status == 200)
            #expect(sms.sent.count == 1)
        }
    }

    @Test("/settings says phone is on; with phone off every phone flow is phone_provider_disabled")
    func settingsAndDisabled() async throws {
        try await Self.withPhoneServer { server, _ in
            let settings = try await server.request(.GET, "/settings")
            #expect((settings["external"] as? [String: Any])?["phone"] as? Bool == true)
        }
        try await TestServer.with { server in
            let settings = try await server.request(.GET, "/settings")
            #expect((settings["external"] as? [String: Any])?["phone"] as? Bool == false)
            let otp = try await server.request(.POST, "/otp", json: ["phone": "15555550123"])
            #expect(otp.errorCode == "phone_provider_disabled")
            let signUp = try await server.request(.POST, "/signup", json: ["phone": "15555550123", "password": "phone password 1"])
            #expect(signUp.errorCode == "phone_provider_disabled")
            let password = try await server.request(.POST, "/token?grant_type=password", json: ["phone": "15555550123", "password": "x password 1"])
            #expect(password.status == 422 && password.errorCode == "phone_provider_disabled")
        }
    }
}
