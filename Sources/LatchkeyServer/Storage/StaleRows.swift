import Foundation

/// What a new account gets in the same transaction as its row (``AuthStore/insertUser(_:audit:start:)``),
/// so that no account is ever left without it.
package enum NewAccountStart: Sendable, Equatable {
    /// Its first session (autoconfirm, anonymous sign-up), with the session's first refresh token.
    case session(SessionRecord, refreshTokenHash: String, audit: AuditEntry?)
    /// Its confirmation link and code, and the PKCE flow waiting for them, if any.
    case confirmation(OneTimeToken, flow: FlowState?, audit: AuditEntry?)
}

/// The instants before which rows can no longer matter, for ``AuthStore/deleteStaleRows(_:limit:)``.
package struct StaleRowCutoffs: Sendable, Equatable {
    /// Spent refresh tokens spent before this go, except the parent of a session's active token
    /// (it still yields the active token). Active tokens never go while their session lives.
    var refreshTokensSpentBefore: Date
    /// Sessions whose hard end (`not_after`) is before this go.
    var sessionsEndedBefore: Date
    /// Sessions last refreshed before this go (the inactivity timeout); `nil`: none go for inactivity.
    var sessionsRefreshedBefore: Date?
    /// Email-link tokens created before this go.
    var oneTimeTokensCreatedBefore: Date
    /// PKCE flows created (and, for a magic link, given their code) before this go.
    var flowStatesCreatedBefore: Date
    /// Audit entries created before this go.
    var auditEntriesCreatedBefore: Date
    /// Unverified factors created before this go, unless challenged at or after
    /// ``factorsChallengedBefore`` (their challenge may still be verified).
    var unverifiedFactorsCreatedBefore: Date
    /// See ``unverifiedFactorsCreatedBefore``.
    var factorsChallengedBefore: Date
    /// MFA challenges created before this go.
    var challengesCreatedBefore: Date
    /// Rate-limit counters whose newest event left its window before this go (PostgreSQL; a
    /// single instance counts in its process).
    var rateLimitWindowsEndedBefore: Date
    /// OAuth authorizations that expired before this go (answered, redeemed or not).
    var oauthAuthorizationsExpiredBefore: Date

    init(
        refreshTokensSpentBefore: Date, sessionsEndedBefore: Date, sessionsRefreshedBefore: Date?, oneTimeTokensCreatedBefore: Date,
        flowStatesCreatedBefore: Date, auditEntriesCreatedBefore: Date, unverifiedFactorsCreatedBefore: Date = .distantPast,
        factorsChallengedBefore: Date = .distantPast, challengesCreatedBefore: Date = .distantPast,
        rateLimitWindowsEndedBefore: Date = .distantPast, oauthAuthorizationsExpiredBefore: Date = .distantPast
    ) {
        self.oauthAuthorizationsExpiredBefore = oauthAuthorizationsExpiredBefore
        self.rateLimitWindowsEndedBefore = rateLimitWindowsEndedBefore
        self.unverifiedFactorsCreatedBefore = unverifiedFactorsCreatedBefore
        self.factorsChallengedBefore = factorsChallengedBefore
        self.challengesCreatedBefore = challengesCreatedBefore
        self.refreshTokensSpentBefore = refreshTokensSpentBefore
        self.sessionsEndedBefore = sessionsEndedBefore
        self.sessionsRefreshedBefore = sessionsRefreshedBefore
        self.oneTimeTokensCreatedBefore = oneTimeTokensCreatedBefore
        self.flowStatesCreatedBefore = flowStatesCreatedBefore
        self.auditEntriesCreatedBefore = auditEntriesCreatedBefore
    }
}

/// How many rows of each kind one cleanup batch deleted.
package struct StaleRowCounts: Sendable, Equatable {
    var sessions = 0
    /// Spent tokens past retention, and tokens whose session has ended.
    var refreshTokens = 0
    var oneTimeTokens = 0
    var flowStates = 0
    var auditEntries = 0
    /// Expired unverified factors (with their challenges).
    var factors = 0
    var challenges = 0
    /// Rate-limit counters whose windows have passed.
    var rateLimitCounters = 0
    /// Expired OAuth authorizations.
    var oauthAuthorizations = 0

    init() {}

    var total: Int {
        sessions + refreshTokens + oneTimeTokens + flowStates + auditEntries + factors + challenges + rateLimitCounters + oauthAuthorizations
    }

    /// Whether some kind filled its batch, so more may be left.
    func filled(_ limit: Int) -> Bool {
        [sessions, refreshTokens, oneTimeTokens, flowStates, auditEntries, factors, challenges, rateLimitCounters, oauthAuthorizations]
            .contains { $0 >= limit }
    }

    static func + (lhs: StaleRowCounts, rhs: StaleRowCounts) -> StaleRowCounts {
        var sum = lhs
        sum.sessions += rhs.sessions
        sum.refreshTokens += rhs.refreshTokens
        sum.oneTimeTokens += rhs.oneTimeTokens
        sum.flowStates += rhs.flowStates
        sum.auditEntries += rhs.auditEntries
        sum.factors += rhs.factors
        sum.challenges += rhs.challenges
        sum.rateLimitCounters += rhs.rateLimitCounters
        sum.oauthAuthorizations += rhs.oauthAuthorizations
        return sum
    }
}
