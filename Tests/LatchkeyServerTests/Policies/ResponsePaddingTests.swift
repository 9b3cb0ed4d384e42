import Foundation
import LatchkeyTesting
import NIOConcurrencyHelpers
import Testing

@testable import LatchkeyServer

/// The answer's timing does not name the accounts: a request that sends nothing takes as long
/// as one that sent an email.
/// The answer's timing does not name the accounts: a request that sends nothing takes as long
/// as one that sent an email.
@Suite("Response padding: an address without an account answers as slowly as one with")
struct ResponsePaddingTests {
    /// A seeded generator (SplitMix64): the same draws on every run.
    final class Draws: Sendable {
        private let state: NIOLockedValueBox<UInt64>
        init(seed: UInt64) { state = NIOLockedValueBox(seed) }
        func next() -> UInt64 {
            state.withLockedValue { value in
                value &+= 0x9E37_79B9_7F4A_7C15
                var z = value
                z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
                z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
                return z ^ (z >> 31)
            }
        }
        /// A number in `0..<1`.
        func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
        func uniform(_ range: ClosedRange<Double>) -> Double { range.lowerBound + unit() * (range.upperBound - range.lowerBound) }
    }

    @Test(
        "the target: above the floor and the slowest recent send of the route and channel, by the drawn headroom; routes and channels do not mix; capped"
    )
    func targets() async {
        let low = ResponsePadding(floor: .milliseconds(100), random: { 0 })
        #expect(await low.target(for: "recover", channel: .email) == .milliseconds(110), "nothing sent yet: the floor, plus headroom")
        await low.record(.milliseconds(40), for: "recover", channel: .email)
        #expect(await low.target(for: "recover", channel: .email) == .milliseconds(110), "faster sends than the floor do not lower it")
        await low.record(.milliseconds(300), for: "recover", channel: .email)
        await low.record(.milliseconds(200), for: "recover", channel: .email)
        #expect(await low.base(for: "recover", channel: .email) == .milliseconds(300), "the slowest recent send")
        #expect(await low.target(for: "recover", channel: .email) == .milliseconds(330))
        #expect(await low.target(for: "otp", channel: .email) == .milliseconds(110))
        #expect(await low.target(for: "recover", channel: .sms) == .milliseconds(110), "texts are timed apart from emails")
        for _ in 0..<ResponsePadding.samplesPerRoute { await low.record(.milliseconds(150), for: "recover", channel: .email) }
        #expect(await low.base(for: "recover", channel: .email) == .milliseconds(150), "the slow sends left the history")

        let high = ResponsePadding(floor: .milliseconds(100), random: { 0.999_999_999 })
        #expect(await high.target(for: "recover", channel: .email) <= .milliseconds(130))
        #expect(await high.target(for: "recover", channel: .email) > .milliseconds(129))
        await high.record(.seconds(60), for: "slow", channel: .sms)
        #expect(await high.target(for: "slow", channel: .sms) == ResponsePadding.longestWait)
        #expect(ResponsePadding(floor: .seconds(99)).floor == ResponsePadding.longestWait)

        // Every answer waits out its target, sent or not; one with a session does not wait.
        let padding = ResponsePadding(floor: .zero, random: { 0.5 })
        #expect(await padding.wait(after: .milliseconds(200), outcome: .sent, route: "r", channel: .email) == .milliseconds(40))
        #expect(await padding.wait(after: .milliseconds(3), outcome: .nothingSent, route: "r", channel: .email) == .milliseconds(237))
        #expect(await padding.wait(after: .milliseconds(3), outcome: .exempt, route: "r", channel: .email) == .zero)
        #expect(await padding.wait(after: .seconds(20), outcome: .sent, route: "r", channel: .email) == .zero, "never a negative wait")
    }

    /// The two-sample Kolmogorov–Smirnov statistic: the largest gap between the two samples'
    /// empirical distribution functions.
    static func ks(_ a: [Duration], _ b: [Duration]) -> Double {
        let a = a.sorted()
        let b = b.sorted()
        var largest = 0.0
        for value in Set(a + b) {
            let fa = Double(a.count(where: { $0 <= value })) / Double(a.count)
            let fb = Double(b.count(where: { $0 <= value })) / Double(b.count)
            largest = max(largest, abs(fa - fb))
        }
        return largest
    }

    @Test("known and unknown addresses take times a two-sample KS test cannot tell apart, while sends get slower, with the wait's own overshoot")
    func distributionsMatch() async {
        // An attacker alternates a known address (an email goes out) and an unknown one (a
        // lookup, nothing sent), 80 of each, while the mail server gets slower (a ramp from
        // 50 ms to 500 ms). An answer takes its work, then its wait, and a wait ends late by
        // 1–3 ms (a timer's overshoot). All times are drawn, none measured: no wall clock.
        let draws = Draws(seed: 0x1A7C_4E11)
        let padding = ResponsePadding(floor: .milliseconds(50), random: { draws.unit() })
        var known: [Duration] = []
        var unknown: [Duration] = []
        for step in 0..<80 {
            for sends in [true, false] {
                let low = 50.0 + Double(step / 10) * 60
                let work = sends ? draws.uniform(low...(low + 30)) : draws.uniform(2...5)
                let elapsed = Duration.microseconds(Int64(work * 1000))
                let wait = await padding.wait(after: elapsed, outcome: sends ? .sent : .nothingSent, route: "recover", channel: .email)
                let overshoot = wait > .zero ? Duration.microseconds(Int64(draws.uniform(1...3) * 1000)) : .zero
                if sends { known.append(elapsed + wait + overshoot) } else { unknown.append(elapsed + wait + overshoot) }
            }
        }
        // The critical value at the 5% level for two samples of 80: 1.358 × √(2/80).
        let critical = 1.358 * (2.0 / 80).squareRoot()
        let statistic = Self.ks(known, unknown)
        #expect(statistic < critical, "KS \(statistic) ≥ \(critical): the answer times tell known addresses from unknown ones")
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

    /// How long `body`'s request took on `clock`: its work (a send moves the clock) and its wait.
    static func took(on clock: ManualServerClock, _ body: () async throws -> TestResponse) async throws -> (Duration, TestResponse) {
        let before = clock.uptime()
        let response = try await body()
        return (clock.uptime() - before, response)
    }

    @Test("/recover and /otp with create_user false: known and unknown addresses both take a target above the slowest send")
    func unknownAddressesWait() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-padding-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualServerClock()
        let mailer = SlowMailer(
            outbox: FileOutboxMailer(directory: directory.appendingPathComponent("outbox")), clock: clock, delay: .milliseconds(300))
        try await TestServer.with(
            clock: clock, mailer: mailer,
            configure: {
                $0.rateLimits.enabled = false
                $0.responsePaddingFloor = 0.1
            }
        ) { server in
            try await server.signUp("known@example.com")
            // Before anything was sent, an unknown address is held to the floor.
            let (first, firstResponse) = try await Self.took(on: clock) {
                try await server.request(.POST, "/recover", json: ["email": "nobody-first@example.com"])
            }
            #expect(firstResponse.status == 200 && first >= .milliseconds(110) && first <= .milliseconds(130), "\(first)")
            let targets = Duration.milliseconds(330)...Duration.milliseconds(390)
            for (path, body) in [("/recover", [String: any Sendable]()), ("/otp", ["create_user": false])] {
                var known = body
                known["email"] = "known@example.com"
                let (sent, sentResponse) = try await Self.took(on: clock) { try await server.request(.POST, path, json: known) }
                #expect(sentResponse.status == 200, "\(sentResponse.text)")
                #expect(targets.contains(sent), "\(path): a request that sent its mail waits for the target too: \(sent)")
                var unknown = body
                unknown["email"] = "nobody-\(UUID().uuidString.prefix(6))@example.com"
                let (unsent, unknownResponse) = try await Self.took(on: clock) { try await server.request(.POST, path, json: unknown) }
                #expect(unknownResponse.status == 200 && unknownResponse.text == sentResponse.text, "the same answer")
                #expect(targets.contains(unsent), "\(path) for an unknown address is held as long: \(unsent)")
            }
            // The gateway's prefix is the same route, timed with the same samples.
            let (prefixed, response) = try await Self.took(on: clock) {
                try await server.request(.POST, "/auth/v1/recover", json: ["email": "nobody-else@example.com"])
            }
            #expect(response.status == 200 && targets.contains(prefixed), "\(response.status), took \(prefixed)")
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

    @Test("/otp by SMS: known and unknown numbers both take a target above the slowest text; emails are timed apart")
    func unknownNumbersWait() async throws {
        let clock = ManualServerClock()
        try await TestServer.with(
            clock: clock,
            smsSender: SlowSMSSender(clock: clock, delay: .milliseconds(300)),
            configure: {
                $0.rateLimits.enabled = false
                $0.phone.enabled = true
                $0.responsePaddingFloor = 0
            }
        ) { server in
            let targets = Duration.milliseconds(330)...Duration.milliseconds(390)
            let (sent, sentResponse) = try await Self.took(on: clock) {
                try await server.request(.POST, "/otp", json: ["phone": "+15555550123"])
            }
            #expect(sentResponse.status == 200 && targets.contains(sent), "\(sentResponse.text), took \(sent)")
            let (unsent, unknown) = try await Self.took(on: clock) {
                try await server.request(.POST, "/otp", json: ["phone": "+15555550199", "create_user": false])
            }
            #expect(unknown.status == 200 && unknown.text == sentResponse.text, "the same answer: \(unknown.text)")
            #expect(targets.contains(unsent), "an unknown number is held as long as a text took: \(unsent)")
            // Texts and emails are timed apart: an unknown address has no email sample to wait for.
            let (email, _) = try await Self.took(on: clock) {
                try await server.request(.POST, "/otp", json: ["email": "nobody@example.com", "create_user": false])
            }
            #expect(email < .milliseconds(100), "\(email)")
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
