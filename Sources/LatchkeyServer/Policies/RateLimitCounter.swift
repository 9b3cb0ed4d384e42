import Foundation

/// Where rate-limit events are counted: per key, in sliding windows (``RateLimitWindow``).
///
/// ``RateLimits`` names the keys and the limits and turns refusals into 429s; a counter only
/// counts. ``InMemoryRateLimitCounter`` counts in the process (SQLite, one instance);
/// ``PostgresRateLimitCounter`` counts in the database, so every instance on it shares one count
/// per key. ``LatchkeyApplication`` chooses it with the store.
///
/// Every method takes the instant of the event from the caller (the server's clock), so that a
/// counter never reads a clock of its own.
protocol RateLimitCounter: Sendable {
    /// Records an event for `key` at `date` if `limit` allows it and the previous event is at
    /// least `minimumInterval` seconds old.
    /// - Returns: `nil` when recorded, otherwise the seconds until an event would be allowed.
    func consume(_ key: String, limit: RateLimitConfiguration.Limit, minimumInterval: TimeInterval, at date: Date) async throws -> Int?

    /// Forgets one event of `key` that ``consume(_:limit:minimumInterval:at:)`` recorded at `date`
    /// (the event did not happen after all).
    func unrecord(_ key: String, at date: Date) async throws

    /// Whether `key` is at its limit at `date`, without recording anything.
    /// - Returns: `nil` when under the limit, otherwise the seconds until it is not.
    func check(_ key: String, limit: RateLimitConfiguration.Limit, at date: Date) async throws -> Int?

    /// Records an event for `key` at `date` without checking the limit.
    func record(_ key: String, limit: RateLimitConfiguration.Limit, at date: Date) async throws

    /// Forgets every event of `key`.
    func reset(_ key: String) async throws
}
