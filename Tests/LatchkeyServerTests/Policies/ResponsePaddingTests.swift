import Foundation
import NIOConcurrencyHelpers
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

    /// A mailer that takes `delay` of real time per message, as an SMTP exchange does.
    struct SlowMailer: Mailer {
        let outbox: FileOutboxMailer
        let delay: Duration
        func send(_ message: MailMessage) async throws {
            try await Task.sleep(for: delay)
            try await outbox.send(message)
        }
    }

    static func elapsed(_ body: () async throws -> TestResponse) async throws -> (Duration, TestResponse) {
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await body()
        return (start.duration(to: clock.now), response)
    }

    @Test("/recover and /otp with create_user false: an unknown address waits as long as a real send took")
    func unknownAddressesWait() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-padding-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mailer = SlowMailer(outbox: FileOutboxMailer(directory: directory.appendingPathComponent("outbox")), delay: .milliseconds(300))
        try await TestServer.with(mailer: mailer, configure: { $0.rateLimits.enabled = false }) { server in
            try await server.signUp("known@example.com")
            for (path, body) in [("/recover", [String: any Sendable]()), ("/otp", ["create_user": false])] {
                var known = body
                known["email"] = "known@example.com"
                let (sent, sentResponse) = try await Self.elapsed { try await server.request(.POST, path, json: known) }
                #expect(sentResponse.status == 200, "\(sentResponse.text)")
                #expect(sent >= .milliseconds(300), "the mail was sent: \(sent)")
                var unknown = body
                unknown["email"] = "nobody-\(UUID().uuidString.prefix(6))@example.com"
                let (waited, unknownResponse) = try await Self.elapsed { try await server.request(.POST, path, json: unknown) }
                #expect(unknownResponse.status == 200 && unknownResponse.text == sentResponse.text, "the same answer")
                #expect(waited >= .milliseconds(290), "\(path) for an unknown address answered after \(waited), a send took \(sent)")
            }
            // The gateway's prefix is the same route, timed with the same samples.
            let (prefixed, response) = try await Self.elapsed {
                try await server.request(.POST, "/auth/v1/recover", json: ["email": "nobody-else@example.com"])
            }
            #expect(response.status == 200 && prefixed >= .milliseconds(290), "\(response.status) after \(prefixed)")
        }
    }

    /// An SMS provider that takes `delay` of real time per message.
    struct SlowSMSSender: SMSSender {
        let delay: Duration
        func send(_ message: SMSMessage) async throws -> String {
            try await Task.sleep(for: delay)
            return "SM-test"
        }
    }

    @Test("/otp by SMS: once a code was texted, an unknown number with create_user false waits as long")
    func unknownNumbersWait() async throws {
        try await TestServer.with(
            smsSender: SlowSMSSender(delay: .milliseconds(300)),
            configure: {
                $0.rateLimits.enabled = false
                $0.phone.enabled = true
            }
        ) { server in
            let (sent, sentResponse) = try await Self.elapsed { try await server.request(.POST, "/otp", json: ["phone": "+15555550123"]) }
            #expect(sentResponse.status == 200 && sent >= .milliseconds(300), "\(sentResponse.text)")
            let (waited, unknown) = try await Self.elapsed {
                try await server.request(.POST, "/otp", json: ["phone": "+15555550199", "create_user": false])
            }
            #expect(unknown.status == 200 && unknown.text == sentResponse.text, "the same answer: \(unknown.text)")
            #expect(waited >= .milliseconds(290), "an unknown number answered after \(waited), a text took \(sent)")
        }
    }

    @Test("an answer with a session (an anonymous sign-up) is not held back, even after slow sends")
    func sessionsAreNotHeldBack() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-padding-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mailer = SlowMailer(outbox: FileOutboxMailer(directory: directory.appendingPathComponent("outbox")), delay: .seconds(3))
        try await TestServer.with(
            mailer: mailer,
            configure: {
                $0.rateLimits.enabled = false
                $0.autoconfirm = false
                $0.enableAnonymousUsers = true
            }
        ) { server in
            // An unconfirmed sign-up mails its confirmation: /signup now has a 3 s sample.
            let (sent, first) = try await Self.elapsed {
                try await server.request(.POST, "/signup", json: ["email": "first@example.com", "password": "correct horse battery"])
            }
            #expect(first.status == 200 && sent >= .seconds(3), "\(first.text)")
            // An anonymous sign-up answers a session, which names no existing account: not held back.
            let (anonymous, response) = try await Self.elapsed { try await server.request(.POST, "/signup", json: [:]) }
            #expect(response.status == 200, "\(response.text)")
            #expect(anonymous < .seconds(3), "an answer with nothing to hide waited \(anonymous)")
        }
    }
}
