import Foundation
import Synchronization

/// The source of "now" for everything time-based on the server: token expiry, reuse
/// windows, bans, rate limits, email-link lifetimes.
///
/// Injected so tests run the real code against a clock they move by hand.
public protocol ServerClock: Sendable {
    func now() -> Date
}

/// The wall clock.
public struct SystemServerClock: ServerClock {
    public init() {}
    public func now() -> Date { Date() }
}

/// A clock that only moves when told to, for tests.
public final class ManualServerClock: ServerClock, Sendable {
    private let current: Mutex<Date>

    public init(_ start: Date = Date()) {
        self.current = Mutex(start)
    }

    public func now() -> Date { current.withLock { $0 } }

    /// Moves the clock forward (or back, with a negative value).
    public func advance(by seconds: TimeInterval) {
        current.withLock { $0 = $0.addingTimeInterval(seconds) }
    }
}
