import Foundation
import LatchkeyWire

/// The refresh-token rules, as pure functions of what a store read about a presented token.
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
///
/// ``plan(_:_:)`` is what a store runs inside its transaction
/// (``AuthStore/rotateRefreshToken(hash:admission:plan:)``): the decision, then the row changes and audit
/// entries that carry it out, so no store re-implements either. Rate limits are not part of it:
/// ``RefreshGrant`` admits a refresh once, before the transaction.
enum RefreshRotation {
    /// The presented token and the rules' parameters.
    struct Request: Sendable {
        var presentedToken: String
        var now: Date
        var reuseInterval: TimeInterval
        var ipAddress: String
        /// How long a session may go without a refresh (`nil`: no limit).
        var inactivityTimeout: TimeInterval? = nil
        /// Derives a token's successor.
        var successor: @Sendable (String) -> String
        /// The OAuth client that authenticated at `POST /oauth/token`; `nil` at `POST /token`.
        /// A session granted to an OAuth client is refreshed by that client only, and only there.
        var clientID: UUID? = nil
    }

    /// What the client gets.
    enum Outcome: Sendable, Equatable {
        /// The token was rotated, or the active token was handed back; `refreshToken` is the
        /// token the client must keep.
        case issued(session: SessionRecord, user: UserRecord, refreshToken: String)
        /// The refresh was refused; the session may have been revoked in the process.
        case refused(AuthError)
    }

    /// The decision for one presented token.
    enum Decision: Sendable, Equatable {
        case refuse(AuthError)
        case rotate(successor: String, successorHash: String)
        case returnActive(token: String)
        case revokeSession
    }

    /// How far back along a family a spent token is followed within the reuse interval.
    static let maximumAncestry = 32

    /// The decision, and the changes that carry it out.
    static func plan(_ state: RefreshTokenState, _ request: Request) -> RefreshTokenPlan<Outcome> {
        changes(for: decide(state, request), state: state, request: request)
    }

    /// Decides what a presented refresh token gets.
    static func decide(_ state: RefreshTokenState, _ request: Request) -> Decision {
        guard let token = state.token else { return .refuse(.refreshTokenNotFound) }
        // GoTrue deletes an ended session (sign-out, admin sign-out, password change, user
        // deleted) and its refresh tokens with it, so their tokens answer "not found" there.
        guard let session = state.session, let user = state.user else { return .refuse(.refreshTokenNotFound) }
        if session.oauthClientID != request.clientID {
            return .refuse(
                session.oauthClientID == nil
                    ? .oauthClientNotAllowedForSession : request.clientID == nil ? .oauthClientRequiredForSession : .oauthClientMismatch)
        }
        if user.isBanned(at: request.now) { return .refuse(.refreshUserBanned) }
        if let notAfter = session.notAfter, notAfter <= request.now { return .refuse(.sessionExpired) }
        if session.isInactive(at: request.now, timeout: request.inactivityTimeout) { return .refuse(.sessionExpiredInactivity) }

        guard let revokedAt = token.revokedAt else {
            let successor = request.successor(request.presentedToken)
            return .rotate(successor: successor, successorHash: OpaqueTokens.hash(successor))
        }
        guard let activeToken = state.activeToken else { return .revokeSession }
        let withinInterval = request.now.timeIntervalSince(revokedAt) < request.reuseInterval
        var candidate = request.presentedToken
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

    /// The row changes and audit entries that carry out `decision`, and the client's answer.
    static func changes(for decision: Decision, state: RefreshTokenState, request: Request) -> RefreshTokenPlan<Outcome> {
        let now = request.now
        switch decision {
        case .refuse(let error):
            return RefreshTokenPlan(changes: [], result: .refused(error))
        case .rotate(let successor, let successorHash):
            guard let token = state.token, var session = state.session, let user = state.user else {
                return RefreshTokenPlan(changes: [], result: .refused(.refreshTokenNotFound))
            }
            session.refreshedAt = now
            session.updatedAt = now
            return RefreshTokenPlan(
                changes: [
                    .markSpent(tokenHash: token.tokenHash, at: now),
                    .insertToken(RefreshTokenRecord(hash: successorHash, of: session, parentHash: token.tokenHash, createdAt: now)),
                    .touchSession(id: session.id, at: now),
                    .audit(
                        AuditEntry(action: .tokenRefreshed, actorID: user.id, actorUsername: user.email, ipAddress: request.ipAddress, createdAt: now)
                    ),
                ],
                result: .issued(session: session, user: user, refreshToken: successor))
        case .returnActive(let activeToken):
            guard let session = state.session, let user = state.user else {
                return RefreshTokenPlan(changes: [], result: .refused(.refreshTokenNotFound))
            }
            return RefreshTokenPlan(changes: [], result: .issued(session: session, user: user, refreshToken: activeToken))
        case .revokeSession:
            guard let token = state.token, let user = state.user else {
                return RefreshTokenPlan(changes: [], result: .refused(.refreshTokenAlreadyUsed))
            }
            let sessionID = token.sessionID
            return RefreshTokenPlan(
                changes: [
                    .revokeSession(id: sessionID, at: now),
                    .audit(
                        AuditEntry(
                            action: .tokenRevoked, actorID: user.id, actorUsername: user.email,
                            traits: ["reason": .string("refresh_token_reuse_detected"), "session_id": .string(sessionID.lowercasedString)],
                            ipAddress: request.ipAddress, createdAt: now)),
                ],
                result: .refused(.refreshTokenAlreadyUsed))
        }
    }
}
