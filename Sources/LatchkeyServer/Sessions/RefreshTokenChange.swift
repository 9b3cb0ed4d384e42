import Foundation

/// What a store reads, inside the rotation's transaction and under its locks, about one
/// presented refresh token.
package struct RefreshTokenState: Sendable, Equatable {
    /// The token with the presented hash; `nil` when it was never issued (or its user is gone).
    var token: RefreshTokenRecord?
    /// The token's session; `nil` when it ended.
    var session: SessionRecord?
    /// The session's user.
    var user: UserRecord?
    /// The session's unspent token, read only when ``token`` is spent.
    var activeToken: RefreshTokenRecord?
    /// The user's factors, for the answer, when the store reads them in the same transaction
    /// (SQLite, where a later read would cost two thread switches); `nil` when it does not.
    var factors: [FactorRecord]?

    init(
        token: RefreshTokenRecord?, session: SessionRecord?, user: UserRecord?, activeToken: RefreshTokenRecord?, factors: [FactorRecord]? = nil
    ) {
        self.token = token
        self.session = session
        self.user = user
        self.activeToken = activeToken
        self.factors = factors
    }
}

/// One row change of a refresh: each maps to a statement or two of plain SQL, so a store applies
/// a list of them without knowing the rules that produced it.
///
/// The changes of one plan touch distinct rows, so a store may apply them in order, one by one,
/// or all in one statement.
package enum RefreshTokenChange: Sendable, Equatable {
    /// Marks the token with this hash spent at `at`.
    case markSpent(tokenHash: String, at: Date)
    /// Adds a token (its `id` is assigned by the store).
    case insertToken(RefreshTokenRecord)
    /// Sets the session's `refreshed_at` and `updated_at` to `at`.
    case touchSession(id: UUID, at: Date)
    /// Deletes the session and marks every unspent token of it spent at `at`; the tokens stay, so
    /// they answer `refresh_token_not_found` (as GoTrue, which deletes them with the session).
    case revokeSession(id: UUID, at: Date)
    /// Appends an audit entry.
    case audit(AuditEntry)
}

/// What to write for a presented refresh token, and what to answer.
package typealias RefreshTokenPlan<Result: Sendable> = StorePlan<RefreshTokenChange, Result>
