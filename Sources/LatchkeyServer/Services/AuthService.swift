import Foundation
import HTTPTypes
import Hummingbird
import JWTKit
import Logging

/// The server's behaviour, independent of HTTP routing: sessions, tokens, password checks,
/// bearer authentication and the rules around them. Route handlers parse input, call this,
/// and encode the result.
struct AuthService: Sendable {
    let configuration: ServerConfiguration
    let store: any AuthStore
    let clock: any ServerClock
    let hasher: PasswordHasher
    let signer: TokenSigner
    let tokens: OpaqueTokens
    let mailer: any Mailer
    let limiter: RateLimiter
    let logger: Logger
    /// Where `/verify` links point (the server itself).
    let externalURL: String
    /// Where users land after following a link.
    let siteURL: String

    var limits: RateLimitConfiguration { configuration.rateLimits }

    // MARK: Sessions

    /// Starts a session for `user` and returns it in GoTrue's shape, recording `audit`.
    func startSession(for user: UserRecord, method: String, ipAddress: String, action: AuditEntry.Action = .login) async throws -> SessionResponse {
        let now = clock.now()
        var user = user
        user.lastSignInAt = now
        user.updatedAt = now
        let session = SessionRecord(
            userID: user.id, createdAt: now, updatedAt: now, refreshedAt: now,
            notAfter: configuration.sessionTimebox.map { now.addingTimeInterval($0) }, authMethod: method)
        let refreshToken = OpaqueTokens.random()
        let audit = AuditEntry(
            action: action, actorID: user.id, actorUsername: user.email,
            traits: ["provider": .string("email"), "method": .string(method)], ipAddress: ipAddress, createdAt: now)
        try await store.createSession(session, refreshTokenHash: OpaqueTokens.hash(refreshToken), updatingUser: user, audit: audit)
        logger.info("session started", metadata: ["user_id": "\(user.id)", "session_id": "\(session.id)", "method": "\(method)"])
        return try await sessionResponse(user: user, session: session, refreshToken: refreshToken)
    }

    /// Signs an access token for `session` and wraps it with `refreshToken`.
    func sessionResponse(user: UserRecord, session: SessionRecord, refreshToken: String) async throws -> SessionResponse {
        // JWT times are whole seconds (NumericDate), as clients decode them.
        let now = Date(timeIntervalSince1970: clock.now().timeIntervalSince1970.rounded(.down))
        let expiresAt = now.addingTimeInterval(configuration.accessTokenTTL)
        let claims = AccessTokenClaims(
            iss: .init(value: signer.issuer), sub: .init(value: user.id.uuidString.lowercased()), aud: .init(value: user.aud),
            exp: .init(value: expiresAt), iat: .init(value: now), email: user.email, phone: "", role: user.role, aal: "aal1",
            amr: [.init(method: session.authMethod, timestamp: Int(session.createdAt.timeIntervalSince1970))],
            sessionID: session.id.uuidString.lowercased(), isAnonymous: false,
            appMetadata: user.appMetadata, userMetadata: user.userMetadata)
        return SessionResponse(
            access_token: try await signer.sign(claims), expires_in: Int(configuration.accessTokenTTL),
            expires_at: Int(expiresAt.timeIntervalSince1970), refresh_token: refreshToken, user: UserResponse(user))
    }

    /// Spends a refresh token (see ``RefreshRotation``).
    func refresh(token: String, ipAddress: String) async throws -> SessionResponse {
        let limiter = self.limiter
        let limit = limits.refreshesPerSession
        let request = RefreshRotation.Request(
            presentedToken: token, now: clock.now(), reuseInterval: configuration.refreshReuseInterval, ipAddress: ipAddress,
            successor: { [tokens] in tokens.successor(of: $0) },
            admit: { limiter.consume("refresh:\($0)", limit: limit) })
        switch try await store.rotateRefreshToken(request) {
        case .issued(let session, let user, let refreshToken):
            return try await sessionResponse(user: user, session: session, refreshToken: refreshToken)
        case .refused(let error):
            if error == .refreshTokenAlreadyUsed {
                logger.warning("refresh token reuse detected: session revoked", metadata: ["ip": "\(ipAddress)"])
            }
            throw error
        }
    }

    // MARK: Bearer authentication

    /// A request authenticated by a user's access token.
    struct Authenticated: Sendable {
        var claims: VerifiedClaims
        var session: SessionRecord
        var user: UserRecord
    }

    /// The bearer token of a request: 401 `no_authorization` when absent.
    func bearerToken(_ request: Request) throws(AuthError) -> String {
        guard let header = request.headers[.authorization], !header.isEmpty else { throw .noAuthorization }
        let utf8 = header.utf8
        guard utf8.count > 7, let space = utf8.firstIndex(of: UInt8(ascii: " ")),
            header[..<space].caseInsensitiveEquals("bearer")
        else { throw .badJWT }
        let token = header[header.index(after: space)...].drop(while: { $0 == " " })
        let trimmed = token.reversed().drop(while: { $0 == " " })
        guard !trimmed.isEmpty else { throw .noAuthorization }
        return String(token.prefix(trimmed.count))
    }

    /// Checks a user's access token and that its session still exists: a token of a session
    /// that was signed out, revoked or whose user was deleted is refused even before it expires.
    func authenticateUser(_ request: Request) async throws -> Authenticated {
        let now = clock.now()
        let claims = try await signer.verify(try bearerToken(request), now: now)
        guard let sessionText = claims.sessionID, let sessionID = UUID(uuidString: sessionText),
            let userID = UUID(uuidString: claims.sub.value)
        else { throw AuthError.sessionGone }
        guard let (session, user) = try await store.sessionWithUser(id: sessionID) else { throw AuthError.sessionGone }
        guard session.userID == userID else { throw AuthError.sessionGone }
        if let notAfter = session.notAfter, notAfter <= now { throw AuthError(.forbidden, "session_expired", "Session expired") }
        if user.isBanned(at: now) { throw AuthError.userBannedForbidden }
        return Authenticated(claims: claims, session: session, user: user)
    }

    /// Checks that the request carries a `service_role` token signed with the server secret.
    func authenticateAdmin(_ request: Request) async throws -> VerifiedClaims {
        let claims = try await signer.verify(try bearerToken(request), now: clock.now())
        // API keys carry no session; a token of a user session is never an admin token.
        guard claims.isServiceRole, claims.sessionID == nil else { throw AuthError.notAdmin }
        return claims
    }

    // MARK: Rate limits

    func limit(_ key: String, _ limit: RateLimitConfiguration.Limit) throws(AuthError) {
        if let retryAfter = limiter.consume(key, limit: limit) { throw AuthError.rateLimited(retryAfter: retryAfter) }
    }

    func limitEmail(to address: String) throws(AuthError) {
        if let retryAfter = limiter.consume("email:\(address)", limit: limits.emailsPerAddress, minimumInterval: limits.emailInterval) {
            throw AuthError.emailRateLimited(retryAfter: retryAfter)
        }
    }
}

extension Substring {
    /// ASCII case-insensitive comparison, without allocating lower-cased copies.
    func caseInsensitiveEquals(_ other: String) -> Bool {
        guard utf8.count == other.utf8.count else { return false }
        return zip(utf8, other.utf8).allSatisfy { a, b in a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= 0x61 && (a | 0x20) <= 0x7A) }
    }
}
