import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// The answer's timing does not name the accounts: a request that sends nothing takes as long
/// as one that sent an email.
@Suite("Response padding: an address without an account answers as slowly as one with")
struct ResponsePaddingTests {
    @Test(
        "a target is one of the route's recorded durations for its channel; routes and channels do not mix; the oldest goes first; waits are capped")
    func samples() async {
        let padding = ResponsePadding()
        #expect(await padding.target(for: "recover", channel: .email) == nil, "nothing sent yet: no wait")
        await padding.record(.milliseconds(40), for: "recover", channel: .email)
        await padding.record(.milliseconds(60), for: "recover", channel: .email)
        for _ in 0..<20 {
            let target = await padding.target(for: "recover", channel: .email)
            #expect(target == .milliseconds(40) || target == .milliseconds(60))
        }
        #expect(await padding.target(for: "otp", channel: .email) == nil)
        #expect(await padding.target(for: "recover", channel: .sms) == nil, "texts are timed apart from emails")
        for _ in 0..<ResponsePadding.samplesPerRoute { await padding.record(.milliseconds(5), for: "recover", channel: .email) }
        for _ in 0..<20 {
            #expect(await padding.target(for: "recover", channel: .email) == .milliseconds(5), "the two first samples were replaced")
        }
        await padding.record(.seconds(60), for: "slow", channel: .sms)
        #expect(await padding.target(for: "slow", channel: .sms) == ResponsePadding.longestWait)
    }

    /// A mailer whose every message takes `delay` on the server's clock, as an SMTP exchange
    /// takes time: the clock moves, nothing waits.
    struct SlowMailer: Mailer {
        let outbox: FileOutboxMailer
        let clock: ManualServerClock
        let delay: Duration
        func send(_ message: MailMessage) async throws {
            clock.advance(by: delay)
            try await outbox.send(message)
        }
    }

    /// The waits the server asked for on `clock` while `body` ran.
    static func waits(on clock: ManualServerClock, _ body: () async throws -> TestResponse) async throws -> ([Duration], TestResponse) {
        let before = clock.sleeps.count
        let response = try await body()
        return (Array(clock.sleeps.dropFirst(before)), response)
    }

    @Test("/recover and /otp with create_user false: an unknown address waits as long as a real send took")
    func unknownAddressesWait() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-padding-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualServerClock()
        let mailer = SlowMailer(outbox: FileOutboxMailer(directory: directory.appendingPathComponent("outbox")), clock: clock, delay: .milliseconds(300))
        try await TestServer.with(clock: clock, mailer: mailer, configure: { $0.rateLimits.enabled = false }) { server in
            try await server.signUp("known@example.com")
            for (path, body) in [("/recover", [String: any Sendable]()), ("/otp", ["create_user": false])] {
                var known = body
                known["email"] = "known@example.com"
                let (sentWaits, sentResponse) = try await Self.waits(on: clock) { try await server.request(.POST, path, json: known) }
                #expect(sentResponse.status == 200, "\(sentResponse.text)")
                #expect(sentWaits.isEmpty, "a request that sent its mail is not held back: \(sentWaits)")
                var unknown = body
                unknown["email"] = "nobody-\(UUID().uuidString.prefix(6))@example.com"
                let (waits, unknownResponse) = try await Self.waits(on: clock) { try await server.request(.POST, path, json: unknown) }
                #expect(unknownResponse.status == 200 && unknownResponse.text == sentResponse.text, "the same answer")
                #expect(waits == [.milliseconds(300)], "\(path) for an unknown address is held back as long as a send took: \(waits)")
            }
            // The gateway's prefix is the same route, timed with the same samples.
            let (waits, response) = try await Self.waits(on: clock) {
                try await server.request(.POST, "/auth/v1/recover", json: ["email": "nobody-else@example.com"])
            }
            #expect(response.status == 200 && waits == [.milliseconds(300)], "\(response.status), waits \(waits)")
        }
    }

    /// An SMS provider whose every message takes `delay` on the server's clock.
    struct SlowSMSSender: SMSSender {
        let clock: ManualServerClock
        let delay: Duration
        func send(_ message: SMSMessage) async throws -> String {
            clock.advance(by: delay)
            return "SM-test"
        }
    }

    @Test("/otp by SMS: once a code was texted, an unknown number with create_user false waits as long")
    func unknownNumbersWait() async throws {
        let clock = ManualServerClock()
        try await TestServer.with(
            clock: clock,
            smsSender: SlowSMSSender(clock: clock, delay: .milliseconds(300)),
            configure: {
                $0.rateLimits.enabled = false
                $0.phone.enabled = true
            }
        ) { server in
            let (sentWaits, sentResponse) = try await Self.waits(on: clock) {
                try await server.request(.POST, "/otp", json: ["phone": "+15555550123"])
            }
            #expect(sentResponse.status == 200 && sentWaits.isEmpty, "\(sentResponse.text)")
            let (waits, unknown) = try await Self.waits(on: clock) {
                try await server.request(.POST, "/otp", json: ["phone": "+15555550199", "create_user": false])
            }
            #expect(unknown.status == 200 && unknown.text == sentResponse.text, "the same answer: \(unknown.text)")
            #expect(waits == [.milliseconds(300)], "an unknown number is held back as long as a text took: \(waits)")
            // Texts and emails are timed apart: an unknown address has no email sample to wait for.
            let (emailWaits, _) = try await Self.waits(on: clock) {
                try await server.request(.POST, "/otp", json: ["email": "nobody@example.com", "create_user": false])
            }
            #expect(emailWaits.isEmpty, "\(emailWaits)")
        }
    }

    @Test("an answer with a session (an anonymous sign-up) is not held back, even after slow sends")
    func sessionsAreNotHeldBack() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-padding-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualServerClock()
        let mailer = SlowMailer(outbox: FileOutboxMailer(directory: directory.appendingPathComponent("outbox")), clock: clock, delay: .seconds(3))
        try await TestServer.with(
            clock: clock,
            mailer: mailer,
            configure: {
                $0.rateLimits.enabled = false
                $0.autoconfirm = false
                $0.enableAnonymousUsers = true
            }
        ) { server in
            // An unconfirmed sign-up mails its confirmation: /signup now has a 3 s sample.
            let (_, first) = try await Self.waits(on: clock) {
                try await server.request(.POST, "/signup", json: ["email": "first@example.com", "password": "correct horse battery"])
            }
            #expect(first.status == 200, "\(first.text)")
            // An anonymous sign-up answers a session, which names no existing account: not held back.
            let (anonymous, response) = try await Self.waits(on: clock) { try await server.request(.POST, "/signup", json: [:]) }
            #expect(response.status == 200, "\(response.text)")
            #expect(anonymous.isEmpty, "an answer with nothing to hide was held back: \(anonymous)")
        }
    }
}
