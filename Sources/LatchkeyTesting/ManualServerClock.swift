import Foundation
import LatchkeyServer
import NIOConcurrencyHelpers

/// A server clock that moves only when told to: token expiry, reuse windows, bans, rate limits
/// and link lifetimes become testable without waiting.
public final class ManualServerClock: ServerClock, Sendable {
    private let current: NIOLockedValueBox<Date>

    /// Starts the clock at `start`.
    public init(_ start: Date = Date()) {
        self.current = NIOLockedValueBox(start)
    }

    public func now() -> Date { current.withLockedValue { $0 } }

    /// Moves the clock forward (or back, with a negative value).
    public func advance(by seconds: TimeInterval) {
        current.withLockedValue { $0 = $0.addingTimeInterval(seconds) }
    }
}
