import Foundation

/// The source of time for everything time-based on the server: token expiry, reuse windows,
/// bans, rate limits, email-link lifetimes, and how long an answer is held back
/// (``ResponsePaddingMiddleware``).
///
/// Injected so tests run the real code against a clock they move by hand, and see the waits
/// the server asked for instead of waiting them out.
public protocol ServerClock: Sendable {
    /// The current date.
    func now() -> Date

    /// A reading of a clock that never goes back (from an arbitrary start): the difference of
    /// two readings is how long the work between them took. By default the continuous clock.
    func uptime() -> Duration

    /// Waits for `duration` on this clock (an answer held back). By default a task sleep;
    /// throws `CancellationError` when the task is cancelled.
    func sleep(for duration: Duration) async throws
}

extension ServerClock {
    public func uptime() -> Duration { ContinuousClock.now - processStart }

    public func sleep(for duration: Duration) async throws { try await Task.sleep(for: duration) }
}

/// The continuous clock's reading when the server's code first asked for the time.
private let processStart = ContinuousClock.now

/// The wall clock.
public struct SystemServerClock: ServerClock {
    public init() {}
    public func now() -> Date { Date() }
}
