import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// Keeps the time an answer takes from telling whether an address or a number has an account.
///
/// `/recover`, `/otp`, `/magiclink`, `/resend`, `/signup` and the hosted pages' resend form
/// answer alike whether or not there is an account, but only a request that finds one sends an
/// email or an SMS, which takes time (an SMTP exchange, a provider's API). Left alone, that
/// difference names the accounts one request at a time. So each of these routes remembers, per
/// channel, how long its recent requests that sent something took (``record(_:for:)``), and a
/// request that sent nothing waits until its answer has taken as long as one of them, picked at
/// random (``target(for:)``): both kinds of answer then take the same times. A route that has
/// sent nothing yet adds no wait, and no wait is longer than ``longestWait``.
actor ResponsePadding {
    /// The recent durations kept per route and channel.
    static let samplesPerRoute = 32
    /// The longest an answer is held back.
    static let longestWait: Duration = .seconds(10)

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

    /// How long an answer of `route` by `channel` that sent nothing should take: one of the
    /// kept durations, at random; `nil` before the route has sent anything that way.
    func target(for route: String, channel: Channel) -> Duration? {
        samples[Key(route: route, channel: channel)]?.randomElement().map { min($0, Self.longestWait) }
    }
}

/// Applies ``ResponsePadding`` to one route, named by `route` (not by the request's path, so
/// that no spelling of the path escapes it): times each answer on `clock` (its
/// ``ServerClock/uptime()``), and either records the time (the request sent something) or waits
/// out the rest of a recorded one (``ServerClock/sleep(for:)``). Errors pass through unchanged
/// and unpadded: the routes answer their errors (validation, rate limits) alike for every
/// address.
struct ResponsePaddingMiddleware<Context: RequestContext>: RouterMiddleware {
    let padding: ResponsePadding
    let route: String
    let clock: any ServerClock

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = clock.uptime()
        let marker = ResponsePadding.Marker()
        let response = try await ResponsePadding.$current.withValue(marker) { try await next(request, context) }
        let elapsed = clock.uptime() - start
        switch marker.outcome {
        case .sent:
            await padding.record(elapsed, for: route, channel: marker.channel)
        case .nothingSent:
            if let target = await padding.target(for: route, channel: marker.channel), target > elapsed {
                try? await clock.sleep(for: target - elapsed)
            }
        case .exempt:
            break
        }
        return response
    }
}
