import Foundation
import Logging

/// Starts sessions and signs their access tokens: the one place a ``SessionResponse`` is made.
struct SessionIssuer: Sendable {
    private let store: any AuthStore
    private let clock: any ServerClock
    private let signer: TokenSigner
    private let accessTokenTTL: TimeInterval
    private let sessionTimebox: TimeInterval?
    private let logger: Logger

    init(store: any AuthStore, clock: any ServerClock, signer: TokenSigner, accessTokenTTL: TimeInterval, sessionTimebox: TimeInterval?, logger: Logger) {
        self.store = store
        self.clock = clock
        self.signer = signer
        self.accessTokenTTL = accessTokenTTL
        self.sessionTimebox = sessionTimebox
        self.logger = logger
    }

    /// Starts a session for `user` (recording `last_sign_in_at` and an audit entry of `action`)
    /// and returns it in GoTrue's shape.
    func start(for user: UserRecord, method: String, ipAddress: String, action: AuditEntry.Action = .login) async throws -> SessionResponse {
        let now = clock.now()
        var user = user
        user.lastSignInAt = now
        user.updatedAt = now
        let session = SessionRecord(
            userID: user.id, createdAt: now, updatedAt: now, refreshedAt: now,
            notAfter: sessionTimebox.map { now.addingTimeInterval($0) }, authMethod: method)
        let refreshToken = OpaqueTokens.random()
        let audit = AuditEntry(
            action: action, actorID: user.id, actorUsername: user.email,
            traits: ["provider": .string("email"), "method": .string(method)], ipAddress: ipAddress, createdAt: now)
        try await store.createSession(session, refreshTokenHash: OpaqueTokens.hash(refreshToken), updatingUser: user, audit: audit)
        logger.info("session started", metadata: ["user_id": "\(user.id)", "session_id": "\(session.id)", "method": "\(method)"])
        return try await response(user: user, session: session, refreshToken: refreshToken)
    }

    /// Signs an access token for `session` and wraps it with `refreshToken`.
    func response(user: UserRecord, session: SessionRecord, refreshToken: String) async throws -> SessionResponse {
        // JWT times are whole seconds (NumericDate), as clients decode them.
        let now = Date(timeIntervalSince1970: clock.now().timeIntervalSince1970.rounded(.down))
        let expiresAt = now.addingTimeInterval(accessTokenTTL)
        let claims = AccessTokenClaims(user: user, session: session, issuer: signer.issuer, issuedAt: now, expiresAt: expiresAt)
        return SessionResponse(
            access_token: try await signer.sign(claims), expires_in: Int(accessTokenTTL),
            expires_at: Int(expiresAt.timeIntervalSince1970), refresh_token: refreshToken, user: UserResponse(user))
    }
}
