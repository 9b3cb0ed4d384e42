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
    /// The custom access token hook, when one is configured: every token's claims go through it.
    var accessTokenHook: CustomAccessTokenHook? = nil

    /// A session about to start: its row, its first refresh token, the user as it is saved with
    /// it (`last_sign_in_at`) and the audit entry.
    struct Prepared: Sendable {
        var session: SessionRecord
        var refreshToken: String
        var user: UserRecord
        var audit: AuditEntry
        /// Its access token, signed before anything is stored when a custom access token hook
        /// is configured (``presign(_:)``), so that a hook's refusal leaves nothing behind.
        var accessToken: SignedToken?
    }

    /// A signed access token and when it expires.
    struct SignedToken: Sendable {
        var token: String
        var expiresAt: Date
    }

    /// Starts a session for `user` (recording `last_sign_in_at` and an audit entry of `action`)
    /// and returns it in GoTrue's shape.
    func start(
        for user: UserRecord, method: String, ipAddress: String, action: AuditEntry.Action = .login, provider: String = "email"
    ) async throws -> SessionResponse {
        let prepared = try await presign(prepare(for: user, method: method, ipAddress: ipAddress, action: action, provider: provider))
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

    /// `prepared` with its access token signed, when a custom access token hook is configured
    /// (the hook is asked before the session is stored); as it is otherwise.
    func presign(_ prepared: Prepared) async throws -> Prepared {
        guard accessTokenHook != nil else { return prepared }
        var prepared = prepared
        prepared.accessToken = try await accessToken(
            user: prepared.user, session: prepared.session, authenticationMethod: prepared.session.authMethod)
        return prepared
    }

    /// The answer for a prepared session once it is stored.
    func started(_ prepared: Prepared) async throws -> SessionResponse {
        logger.info(
            "session started",
            metadata: ["user_id": "\(prepared.user.id)", "session_id": "\(prepared.session.id)", "method": "\(prepared.session.authMethod)"])
        return try await response(
            user: prepared.user, session: prepared.session, refreshToken: prepared.refreshToken, authenticationMethod: prepared.session.authMethod,
            presigned: prepared.accessToken)
    }

    /// Signs an access token for `session` (or takes the `presigned` one) and wraps it with
    /// `refreshToken`. The custom access token hook, when configured, is told
    /// `authenticationMethod` (GoTrue's: `password`, `token_refresh`, `totp` …). The user's
    /// `factors` are read unless given.
    func response(
        user: UserRecord, session: SessionRecord, refreshToken: String, authenticationMethod: String, presigned: SignedToken? = nil,
        factors: [FactorRecord]? = nil
    ) async throws -> SessionResponse {
        let signed: SignedToken
        if let presigned {
            signed = presigned
        } else {
            signed = try await accessToken(user: user, session: session, authenticationMethod: authenticationMethod)
        }
        let listed = if let factors { factors } else { try await store.factors(userID: user.id) }
        return SessionResponse(
            access_token: signed.token, expires_in: Int(accessTokenTTL), expires_at: Int(signed.expiresAt.timeIntervalSince1970),
            refresh_token: refreshToken,
            user: UserResponse(user, factors: listed, identities: try await store.linkedIdentities(of: user)))
    }

    /// `user`'s access token for `session`: its claims, through the custom access token hook
    /// when one is configured, signed.
    func accessToken(user: UserRecord, session: SessionRecord, authenticationMethod: String) async throws -> SignedToken {
        // JWT times are whole seconds (NumericDate), as clients decode them.
        let now = Date(timeIntervalSince1970: clock.now().timeIntervalSince1970.rounded(.down))
        let expiresAt = now.addingTimeInterval(accessTokenTTL)
        let claims = AccessTokenClaims(user: user, session: session, issuer: signer.issuer, issuedAt: now, expiresAt: expiresAt)
        guard let accessTokenHook else { return SignedToken(token: try await signer.sign(claims), expiresAt: expiresAt) }
        let hooked = try await accessTokenHook.claims(for: claims, userID: user.id, authenticationMethod: authenticationMethod)
        return SignedToken(token: try await signer.sign(HookedAccessTokenClaims(hooked)), expiresAt: expiresAt)
    }
}

extension NewAccountStart {
    /// A new account's first session as ``SessionIssuer/prepare(for:method:ipAddress:action:provider:)``
    /// made it: stored with the account's row, then answered with ``SessionIssuer/started(_:)``.
    static func session(_ prepared: SessionIssuer.Prepared) -> NewAccountStart {
        .session(prepared.session, refreshTokenHash: OpaqueTokens.hash(prepared.refreshToken), audit: prepared.audit)
    }
}
