import Foundation

/// What a store reads, inside the transaction of ``AuthStore/changeFactors(of:challengeID:sessionID:plan:)``
/// and under its locks, about a user's factors.
package struct FactorState: Sendable, Equatable {
    /// Every factor of the user, oldest first (empty when the user is gone).
    var factors: [FactorRecord]
    /// The challenge asked for, if it exists (of any factor: the plan checks whose it is).
    var challenge: ChallengeRecord?
    /// The session asked for, if it exists (of any user: the plan checks whose it is).
    var session: SessionRecord?

    init(factors: [FactorRecord], challenge: ChallengeRecord?, session: SessionRecord?) {
        self.factors = factors
        self.challenge = challenge
        self.session = session
    }
}

/// One row change of a factor operation: each maps to a statement or two of plain SQL, so a
/// store applies a list of them in order without knowing the rules that produced it.
package enum FactorChange: Sendable, Equatable {
    case insertFactor(FactorRecord)
    /// Replaces the factor's name, status, times and last used step.
    case updateFactor(FactorRecord)
    /// Deletes the factor with its challenges, and lowers every session it raised back to
    /// `aal1` (its verified methods cleared), as GoTrue's `DowngradeSessionsToAAL1`.
    case deleteFactor(id: UUID)
    case insertChallenge(ChallengeRecord)
    case markChallengeVerified(id: UUID, at: Date)
    case deleteChallenge(id: UUID)
    /// Replaces the session's assurance level, factor, verified methods and `updated_at`.
    case updateSessionAssurance(SessionRecord)
    /// Spends every unspent refresh token of the session and gives it a new one (not derived
    /// from the old ones), so a token from before the change cannot renew the raised session.
    case replaceRefreshToken(RefreshTokenRecord)
    /// Ends the user's `aal1` sessions other than `except` (GoTrue's
    /// `InvalidateSessionsWithAALLessThan` after a verification).
    case endLowerAssuranceSessions(userID: UUID, except: UUID)
    case audit(AuditEntry)
}

/// What to write for a factor operation, and what to answer.
package typealias FactorPlan<Result: Sendable> = StorePlan<FactorChange, Result>
