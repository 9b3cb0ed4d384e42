import Foundation
import Hummingbird
import NIOConcurrencyHelpers

/// Keeps the time an answer takes from telling whether an address or a number has an account.
///
/// `/recover`, `/otp`, `/magiclink`, `/resend`, `/signup` and the hosted pages' resend form
/// answer alike whether or not there is an account, but only a request that finds one sends an
/// email or an SMS, which takes time
/// (an SMTP exchange, a provider's API). Left alone, that difference names the accounts one
/// request at a time. So these routes remember how long their recent requests that sent
/// something took (``record(_:route:)``), and a request that sent nothing waits until its
/// answer has taken as long as one of them, picked at random (``target(route:)``): both kinds
/// of answer then take the same times. A route that has sent nothing yet adds no wait, and no
/// wait is longer than ``longestWait``.
actor ResponsePadding {
    /// The recent durations kept per route.
    static let samplesPerRoute = 32
    /// The longest an answer is held back.
    static let longestWait: Duration = .seconds(10)

    /// What the request being answered did: sent an email or an SMS (``markSent()``), or
    /// answered something that concerns no address (``markExempt()``).
    final class Marker: Sendable {
        enum Outcome { case nothingSent, sent, exempt }
        private let state = NIOLockedValueBox(Outcome.nothingSent)
        var outcome: Outcome { state.withLockedValue { $0 } }
        func set(_ outcome: Outcome) { state.withLockedValue { $0 = outcome } }
    }

    /// The marker of the request this task answers, `nil` outside a padded route.
    @TaskLocal static var current: Marker?

    /// Called where a message leaves the server (an email handed to the mailer or the send
    /// email hook, an SMS to the provider or the send SMS hook, a test number's fixed code).
    static func markSent() { current?.set(.sent) }

    /// Called by an answer that concerns no address or number (an anonymous sign-up): it is
    /// neither recorded nor held back.
    static func markExempt() { current?.set(.exempt) }

    private var samples: [String: [Duration]] = [:]
    private var next: [String: Int] = [:]

    /// Remembers that a request to `route` that sent something took `duration`.
    func record(_ duration: Duration, route: String) {
        var kept = samples[route, default: []]
        if kept.count < Self.samplesPerRoute {
            kept.append(duration)
        } else {
            let index = next[route, default: 0]
            kept[index] = duration
            next[route] = (index + 1) % Self.samplesPerRoute
        }
        samples[route] = kept
    }

    /// How long an answer of `route` that sent nothing should take: one of the kept durations,
    /// at random; `nil` before the route has sent anything.
    func target(route: String) -> Duration? {
        samples[route]?.randomElement().map { min($0, Self.longestWait) }
    }
}

/// Applies ``ResponsePadding`` to the routes of its group: times each answer on `clock`, and
/// either records the time (the request sent something) or waits out the rest of a recorded
/// one. Errors pass through unchanged and unpadded: the routes answer their errors (validation,
/// rate limits) alike for every address.
struct ResponsePaddingMiddleware<Context: RequestContext, C: Clock>: RouterMiddleware where C.Duration == Duration {
    let padding: ResponsePadding
    let clock: C

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = clock.now
        let marker = ResponsePadding.Marker()
        let response = try await ResponsePadding.$current.withValue(marker) { try await next(request, context) }
        let elapsed = start.duration(to: clock.now)
        let route = request.uri.path
        switch marker.outcome {
        case .sent:
            await padding.record(elapsed, route: route)
        case .nothingSent:
            if let target = await padding.target(route: route), target > elapsed {
                try? await clock.sleep(for: target - elapsed, tolerance: nil)
            }
        case .exempt:
            break
        }
        return response
    }
}
