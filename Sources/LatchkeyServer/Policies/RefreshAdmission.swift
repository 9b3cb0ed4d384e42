import Foundation

/// A refresh to count against its session's limit (``RateLimitConfiguration/refreshesPerSession``),
/// handed to ``AuthStore/rotateRefreshToken(hash:admission:plan:)``: the store counts it inside
/// the rotation's transaction, as soon as it has read the token's session and before the plan
/// runs. A refresh so costs no read of its own, a transaction PostgreSQL retries counts once
/// (the count is rolled back with the attempt), and a refused refresh changes nothing (the store
/// throws ``AuthError/rateLimited(retryAfter:)`` and rolls back).
package struct RefreshAdmission: Sendable {
    let counter: any RateLimitCounter
    let limit: RateLimitConfiguration.Limit
    let date: Date

    /// The counter's key for a session's refreshes.
    static func key(_ sessionID: UUID) -> String { "refresh:\(sessionID)" }

    /// Counts a refresh of `sessionID` with a counter that may wait (the PostgreSQL store's path
    /// for a counter other than its own).
    func admit(_ sessionID: UUID) async throws {
        if let retryAfter = try await counter.consume(Self.key(sessionID), limit: limit, minimumInterval: 0, at: date) {
            throw AuthError.rateLimited(retryAfter: retryAfter)
        }
    }

    /// Counts a refresh of `sessionID` without waiting, as a SQLite transaction must: with the
    /// in-process counter, the only one a SQLite store is given.
    func admitImmediately(_ sessionID: UUID) throws {
        guard let counter = counter as? InMemoryRateLimitCounter else {
            throw StoreError.unavailable("a SQLite store counts refreshes in process; it was given another counter")
        }
        if let retryAfter = counter.consume(Self.key(sessionID), limit: limit, minimumInterval: 0, at: date) {
            throw AuthError.rateLimited(retryAfter: retryAfter)
        }
    }
}
