import Foundation
import LatchkeyWire
import Logging

/// Starts sessions and signs their access tokens: the one place a ``SessionResponse`` is made.
struct SessionIssuer: Sendable {
    let store: any AuthStore
    let clock: any ServerClock
    let signer: TokenSigner
    let accessTokenTTL: TimeInterval
    let sessionTimebox: TimeInterval?
    let logger: Logger

    /// A session about to start: its row, its first refresh token, the user as it is saved with
    /// it (`last_sign_in_at`) and the audit entry.
    struct Prepared: Sendable {
        var session: SessionRecord
        var refreshToken: String
        var user: UserRecord
        var audit: AuditEntry
    }

    /// Starts a session for `user` (recording `last_sign_in_at` and an audit entry of `action`)
    /// and returns it in GoTrue's shape.
    func start(
        for user: UserRecord, method: String, ipAddress: String, action: AuditEntry.Action = .login, provider: String = "email"
    ) async throws -> SessionResponse {
        let prepared = prepare(for: user, method: method, ipAddress: ipAddress, action: action, provider: provider)
        try await store.createSession(
            prepared.session, refreshTokenHash: OpaqueTokens.hash(prepared.refreshToken), updatingUser: prepared.user, audit: prepared.audit)
        return try await started(prepared)
    }

    /// A new session for `user`, not yet stored: a new account stores it with its row
    /// (``AuthStore/insertUser(_:audit:start:)``), then calls ``started(_:)``.
    func prepare(
        for user: UserRecord, method: String, ipAddress: String, action: AuditEntry.Action = .login, provider: String = "email"
    ) -> Prepared {
        let now = clock.now()
        var user = user
        user.lastSignInAt = now
        user.updatedAt = now
        let session = SessionRecord(
            userID: user.id, createdAt: now, updatedAt: now, refreshedAt: now,
            notAfter: sessionTimebox.map { now.addingTimeInterval($0) }, authMethod: method)
        let audit = AuditEntry(
            action: action, actorID: user.id, actorUsername: user.email,
            traits: ["provider": .string(provider), "method": .string(method)], ipAddress: ipAddress, createdAt: now)
        return Prepared(session: session, refreshToken: OpaqueTokens.random(), user: user, audit: audit)
    }

    /// The answer for a prepared session once it is stored.
    func started(_ prepared: Prepared) async throws -> SessionResponse {
        logger.info(
            "session started",
            metadata: ["user_id": "\(prepared.user.id)", "session_id": "\(prepared.session.id)", "method": "\(prepared.session.authMethod)"])
        return try await response(user: prepared.user, session: prepared.session, refreshToken: prepared.refreshToken)
    }

    /// Signs an access token for `session` and wraps it with `refreshToken`.
    func response(user: UserRecord, session: SessionRecord, refreshToken: String) async throws -> SessionResponse {
        // JWT times are whole seconds (NumericDate), as clients decode them.
        let now = Date(timeIntervalSince1970: clock.now().timeIntervalSince1970.rounded(.down))
        let expiresAt = now.addingTimeInterval(accessTokenTTL)
        let claims = AccessTokenClaims(user: user, session: session, issuer: signer.issuer, issuedAt: now, expiresAt: expiresAt)
        return SessionResponse(
            access_token: try await signer.sign(claims), expires_in: Int(accessTokenTTL),
            expires_at: Int(expiresAt.timeIntervalSince1970), refresh_token: refreshToken,
            user: UserResponse(user, factors: try await store.factors(userID: user.id), identities: try await store.linkedIdentities(of: user)))
    }
}
