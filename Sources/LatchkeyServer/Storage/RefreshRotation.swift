import Foundation

/// The refresh-token rules, as one pure decision that every store applies inside a transaction.
///
/// - An active token is rotated: it is marked spent and its successor becomes active.
/// - A spent token that is the parent of the active one yields the active token again: the
///   client most likely lost the previous response, and must not be signed out for it.
/// - A spent token within the reuse interval of being spent yields the active token too
///   (several requests raced with the same token).
/// - Any other spent token means the token leaked: the whole session is revoked.
///
/// Successors are derived from their parent (``OpaqueTokens/successor(of:)``), so the active
/// token can be recomputed from a spent ancestor; the store holds only hashes.
public enum RefreshRotation {
    /// What the caller presents.
    public struct Request: Sendable {
        public var presentedToken: String
        public var now: Date
        public var reuseInterval: TimeInterval
        public var ipAddress: String
        /// Derives a token's successor.
        public var successor: @Sendable (String) -> String
        /// Asked once the session is known: `nil` admits the refresh, a number refuses it as
        /// rate limited with that many seconds to wait.
        public var admit: @Sendable (UUID) -> Int?

        public init(
            presentedToken: String, now: Date, reuseInterval: TimeInterval, ipAddress: String,
            successor: @escaping @Sendable (String) -> String, admit: @escaping @Sendable (UUID) -> Int? = { _ in nil }
        ) {
            self.presentedToken = presentedToken
            self.now = now
            self.reuseInterval = reuseInterval
            self.ipAddress = ipAddress
            self.successor = successor
            self.admit = admit
        }
    }

    /// What the store did.
    public enum Outcome: Sendable {
        /// The token was rotated, or the active token was handed back; `refreshToken` is the
        /// token the client must keep.
        case issued(session: SessionRecord, user: UserRecord, refreshToken: String)
        /// The refresh was refused; the session may have been revoked in the process.
        case refused(AuthError)
    }

    /// The decision for one presented token.
    public enum Decision: Sendable, Equatable {
        case refuse(AuthError)
        case rotate(successor: String, successorHash: String)
        case returnActive(token: String)
        case revokeSession
    }

    /// How far back along a family a spent token is followed within the reuse interval.
    static let maximumAncestry = 32

    /// Decides what a presented refresh token gets.
    public static func decide(
        presented: String, token: RefreshTokenRecord?, session: SessionRecord?, user: UserRecord?,
        activeToken: RefreshTokenRecord?, request: Request
    ) -> Decision {
        guard let token else { return .refuse(.refreshTokenNotFound) }
        guard let session, let user else { return .refuse(.sessionNotFound) }
        if let notAfter = session.notAfter, notAfter <= request.now { return .refuse(.sessionExpired) }
        if user.isBanned(at: request.now) { return .refuse(.userBanned) }
        if let retryAfter = request.admit(session.id) { return .refuse(.rateLimited(retryAfter: retryAfter)) }

        guard let revokedAt = token.revokedAt else {
            let successor = request.successor(presented)
            return .rotate(successor: successor, successorHash: OpaqueTokens.hash(successor))
        }
        guard let activeToken else { return .revokeSession }
        let withinInterval = request.now.timeIntervalSince(revokedAt) < request.reuseInterval
        var candidate = presented
        for generation in 1...maximumAncestry {
            candidate = request.successor(candidate)
            if constantTimeEquals(OpaqueTokens.hash(candidate), activeToken.tokenHash) {
                // The direct parent is always forgiven; older ancestors only within the interval.
                return generation == 1 || withinInterval ? .returnActive(token: candidate) : .revokeSession
            }
            if !withinInterval { break }
        }
        return .revokeSession
    }
}
