import Foundation
import Logging

/// Keeps the tables bounded: deletes what can no longer matter, in small batches.
///
/// - Spent refresh tokens older than the retention (GoTrue's 24 h by default), except the
///   parent of a session's active token, which still yields the active token (the lost-response
///   rule); and every token of a session that has ended. A pruned token answers
///   `refresh_token_not_found`, as it does in GoTrue once its cleanup has deleted it.
/// - Sessions past their timebox (`not_after`) or their inactivity timeout, a day after they
///   expired (as GoTrue, so that clients hear `session_expired` for a while first).
/// - Unverified MFA factors past their expiry (not challenged within the challenge expiry), and
///   MFA challenges an hour after they expired.
/// - Email-link tokens older than the longest link or code lifetime, PKCE flows older than their
///   five minutes plus an hour, and audit entries older than the audit retention.
/// - On PostgreSQL, rate-limit counters whose newest event has left its window
///   (``PostgresRateLimitCounter``).
///
/// Each batch is one short transaction per kind, so requests never wait long behind it; on
/// PostgreSQL the batches skip rows other transactions hold, so every instance may run it.
struct StorageCleanup: Sendable {
    struct Settings: Sendable {
        var refreshTokenRetention: TimeInterval
        var auditRetention: TimeInterval
        var sessionInactivityTimeout: TimeInterval?
        /// The longest an email-link token can be used (the longest link or code lifetime).
        var oneTimeTokenLifetime: TimeInterval
        /// Seconds an enrolled factor may stay unverified (``ServerConfiguration/mfaFactorExpiry``).
        var mfaFactorExpiry: TimeInterval = ServerConfiguration.defaultMFAFactorExpiry
        /// Seconds an MFA challenge can be verified (``ServerConfiguration/mfaChallengeExpiry``).
        var mfaChallengeExpiry: TimeInterval = ServerConfiguration.defaultMFAChallengeExpiry
        /// Rows per kind deleted in one transaction.
        var batchSize = 500
    }

    /// How long an expired session is kept, so that its refresh token answers `session_expired`
    /// before it answers `refresh_token_not_found`: 24 hours, as GoTrue's cleanup.
    static let expiredSessionGrace: TimeInterval = 86_400
    /// How long a PKCE flow is kept: its 5-minute lifetime plus an hour, so a late code still
    /// hears `flow_state_expired` for a while.
    static let flowStateRetention: TimeInterval = PKCEGrant.flowStateLifetime + 3600

    /// How long an MFA challenge is kept after it expired, so a late code still hears
    /// `mfa_challenge_expired` for a while: an hour.
    static let challengeGrace: TimeInterval = 3600

    /// How long an OAuth authorization is kept after it expired, so that its code presented
    /// again still ends the session it started, and a late consent hears that it expired: a day.
    static let oauthAuthorizationGrace: TimeInterval = 86_400

    let store: any AuthStore
    let clock: any ServerClock
    let settings: Settings

    /// The cutoffs for a run at `now`.
    func cutoffs(at now: Date) -> StaleRowCutoffs {
        StaleRowCutoffs(
            refreshTokensSpentBefore: now.addingTimeInterval(-settings.refreshTokenRetention),
            sessionsEndedBefore: now.addingTimeInterval(-Self.expiredSessionGrace),
            sessionsRefreshedBefore: settings.sessionInactivityTimeout.map { now.addingTimeInterval(-($0 + Self.expiredSessionGrace)) },
            oneTimeTokensCreatedBefore: now.addingTimeInterval(-settings.oneTimeTokenLifetime),
            flowStatesCreatedBefore: now.addingTimeInterval(-Self.flowStateRetention),
            auditEntriesCreatedBefore: now.addingTimeInterval(-settings.auditRetention),
            unverifiedFactorsCreatedBefore: now.addingTimeInterval(-settings.mfaFactorExpiry),
            factorsChallengedBefore: now.addingTimeInterval(-settings.mfaChallengeExpiry),
            challengesCreatedBefore: now.addingTimeInterval(-(settings.mfaChallengeExpiry + Self.challengeGrace)),
            rateLimitWindowsEndedBefore: now, oauthAuthorizationsExpiredBefore: now.addingTimeInterval(-Self.oauthAuthorizationGrace))
    }

    /// Deletes batches until no kind has stale rows left; returns how many rows went.
    func run() async throws -> StaleRowCounts {
        let cutoffs = cutoffs(at: clock.now())
        var total = StaleRowCounts()
        while true {
            try Task.checkCancellation()
            let batch = try await store.deleteStaleRows(cutoffs, limit: settings.batchSize)
            total = total + batch
            guard batch.filled(settings.batchSize) else { return total }
            await Task.yield()
        }
    }
}
