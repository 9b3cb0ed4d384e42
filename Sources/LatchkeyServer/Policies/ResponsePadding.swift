import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// Keeps the time an answer takes from telling whether an address or a number has an account.
///
/// `/recover`, `/otp`, `/magiclink`, `/resend`, `/signup` and the hosted pages' resend form
/// answer alike whether or not there is an account, but only a request that finds one sends an
/// email or an SMS, which takes time (an SMTP exchange, a provider's API). Left alone, that
/// difference names the accounts one request at a time.
///
/// So every answer of these routes, sent or not, is held until it has taken a common target
/// time (``target(for:channel:)``). Per route and channel, the target starts from a *base*: the
/// slowest of the recent sends (``samplesPerRoute``), and never less than the configured
/// ``floor`` — so the first answers after a start, before anything was sent, are held too. Each
/// answer's target is the base times a factor drawn at random from ``headroom``: a send a little
/// slower than the ones before still ends within the targets, every answer waits some time (so
/// the wait's own overshoot is the same for both kinds), and the exact base is not shown. When
/// sends get slower, the base follows at the first slower send; when they get faster, it stays
/// up until the slow ones leave the history. No wait is longer than ``longestWait``.
///
/// What is left: a send slower than every target (a mail server stalling) ends after them all.
actor ResponsePadding {
    /// The recent send durations kept per route and channel.
    static let samplesPerRoute = 32
    /// The longest an answer is held back.
    static let longestWait: Duration = .seconds(10)
    /// The factors a target is drawn from, times the base.
    static let headroom: ClosedRange<Double> = 1.1...1.3

    /// How long every answer takes at least, before any send is known.
    nonisolated let floor: Duration
    /// A random number in `0..<1` per target (injected by tests).
    private let random: @Sendable () -> Double

    /// How a route reaches the person: its emails and its texts take different times, so
    /// each is timed on its own.
    enum Channel: Sendable { case email, sms }

    /// What the request being answered did: sent a message (``markSent()``), or answered
    /// something that concerns no existing address (``markExempt()``); and by which channel it
    /// would send (``answering(by:)``).
    final class Marker: Sendable {
        enum Outcome { case nothingSent, sent, exempt }
        private let state = NIOLockedValueBox((outcome: Outcome.nothingSent, channel: Channel.email))
        var outcome: Outcome { state.withLockedValue { $0.outcome } }
        var channel: Channel { state.withLockedValue { $0.channel } }
        func set(_ outcome: Outcome) { state.withLockedValue { $0.outcome = outcome } }
        func set(_ channel: Channel) { state.withLockedValue { $0.channel = channel } }
    }

    /// The marker of the request this task answers, `nil` outside a padded route.
    @TaskLocal static var current: Marker?

    /// Called where a message leaves the server (an email handed to the mailer or the send
    /// email hook, an SMS to the provider or the send SMS hook, a test number's fixed code).
    static func markSent() { current?.set(.sent) }

    /// Called by an answer that concerns no existing address or number (a session for a new or
    /// anonymous account): it is neither recorded nor held back.
    static func markExempt() { current?.set(.exempt) }

    /// Called where a request turns to a phone number: it is timed with the route's texts.
    static func answering(by channel: Channel) { current?.set(channel) }

    private struct Key: Hashable {
        var route: String
        var channel: Channel
    }

    private var samples: [Key: [Duration]] = [:]
    private var next: [Key: Int] = [:]

    /// - Parameters:
    ///   - floor: how long every answer takes at least (``ServerConfiguration/responsePaddingFloor``).
    ///   - random: a number in `0..<1`, drawn for each target.
    init(floor: Duration, random: @escaping @Sendable () -> Double = { Double.random(in: 0..<1) }) {
        self.floor = min(max(floor, .zero), Self.longestWait)
        self.random = random
    }

    /// Remembers that a request to `route` that sent something by `channel` took `duration`.
    func record(_ duration: Duration, for route: String, channel: Channel) {
        let key = Key(route: route, channel: channel)
        var kept = samples[key, default: []]
        if kept.count < Self.samplesPerRoute {
            kept.append(duration)
        } else {
            let index = next[key, default: 0]
            kept[index] = duration
            next[key] = (index + 1) % Self.samplesPerRoute
        }
        samples[key] = kept
    }

    /// The slowest recent send of `route` by `channel`, and never less than ``floor``.
    func base(for route: String, channel: Channel) -> Duration {
        max(floor, samples[Key(route: route, channel: channel)]?.max() ?? .zero)
    }

    /// How long an answer of `route` by `channel` should take, whether it sent something or
    /// not: the ``base(for:channel:)`` times a factor drawn from ``headroom``, to the
    /// microsecond, at most ``longestWait``.
    func target(for route: String, channel: Channel) -> Duration {
        let factor = Self.headroom.lowerBound + min(max(random(), 0), 1) * (Self.headroom.upperBound - Self.headroom.lowerBound)
        let (seconds, attoseconds) = base(for: route, channel: channel).components
        let microseconds = (Double(seconds) * 1e6 + Double(attoseconds) / 1e12) * factor
        return min(.microseconds(Int64(microseconds.rounded())), Self.longestWait)
    }

    /// How long an answer of `route` by `channel` that took `elapsed` waits before it is sent:
    /// the rest of its ``target(for:channel:)``, after recording `elapsed` when the request
    /// sent something; no wait for an answer with nothing to hide (``Marker/Outcome/exempt``).
    func wait(after elapsed: Duration, outcome: Marker.Outcome, route: String, channel: Channel) -> Duration {
        switch outcome {
        case .exempt: return .zero
        case .sent: record(elapsed, for: route, channel: channel)
        case .nothingSent: break
        }
        return max(target(for: route, channel: channel) - elapsed, .zero)
    }
}

/// Applies ``ResponsePadding`` to one route, named by `route` (not by the request's path, so
/// that no spelling of the path escapes it): times each answer on `clock` (its
/// ``ServerClock/uptime()``), records the time when the request sent something, and then waits
/// out the rest of the answer's target (``ServerClock/sleep(for:)``), sent or not. An answer
/// with a session (``ResponsePadding/markExempt()``) names no existing account and is not held.
/// Errors pass through unchanged and unpadded: the routes answer their errors (validation, rate
/// limits) alike for every address.
struct ResponsePaddingMiddleware<Context: RequestContext>: RouterMiddleware {
    let padding: ResponsePadding
    let route: String
    let clock: any ServerClock

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = clock.uptime()
        let marker = ResponsePadding.Marker()
        let response = try await ResponsePadding.$current.withValue(marker) { try await next(request, context) }
        let elapsed = clock.uptime() - start
        let wait = await padding.wait(after: elapsed, outcome: marker.outcome, route: route, channel: marker.channel)
        if wait > .zero { try? await clock.sleep(for: wait) }
        return response
    }
}
