import Foundation
import LatchkeyServer
import NIOConcurrencyHelpers

/// A server clock that moves only when told to: token expiry, reuse windows, bans, rate limits
/// and link lifetimes become testable without waiting.
///
/// The server's waits on it (an answer held back so that its timing names no account) return at
/// once: each moves the clock forward by what was asked and is kept in ``sleeps``, so a test
/// checks what the server asked for, never how long a request took.
public final class ManualServerClock: ServerClock, Sendable {
    private struct State {
        var date: Date
        var uptime: Duration = .zero
        var sleeps: [Duration] = []
    }
    private let state: NIOLockedValueBox<State>

    /// Starts the clock at `start`.
    public init(_ start: Date = Date()) {
        self.state = NIOLockedValueBox(State(date: start))
    }

    public func now() -> Date { state.withLockedValue { $0.date } }

    /// How far the clock has moved forward since it was made (moves back leave it alone).
    public func uptime() -> Duration { state.withLockedValue { $0.uptime } }

    /// Keeps `duration` in ``sleeps`` and moves the clock forward by it; returns at once.
    public func sleep(for duration: Duration) async throws {
        try Task.checkCancellation()
        state.withLockedValue {
            $0.sleeps.append(duration)
            $0.date = $0.date.addingTimeInterval(duration.timeInterval)
            $0.uptime += duration
        }
    }

    /// The waits the server asked for on this clock, oldest first.
    public var sleeps: [Duration] { state.withLockedValue { $0.sleeps } }

    /// Moves the clock forward (or back, with a negative value).
    public func advance(by seconds: TimeInterval) {
        state.withLockedValue {
            $0.date = $0.date.addingTimeInterval(seconds)
            if seconds > 0 { $0.uptime += .seconds(seconds) }
        }
    }

    /// Moves the clock forward (or back, with a negative value), as work that took `duration`
    /// would (a slow mail server, say).
    public func advance(by duration: Duration) {
        state.withLockedValue {
            $0.date = $0.date.addingTimeInterval(duration.timeInterval)
            if duration > .zero { $0.uptime += duration }
        }
    }
}

extension Duration {
    /// The duration in seconds, as `TimeInterval`.
    fileprivate var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
