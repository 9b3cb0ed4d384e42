import Foundation

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
