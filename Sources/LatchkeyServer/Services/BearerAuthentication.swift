import Foundation

/// Who presents a bearer token: a signed-in user with a live session, or the administrator key.
struct BearerAuthentication: Sendable {
    /// A request authenticated by a user's access token.
    struct Authenticated: Sendable {
        var claims: VerifiedClaims
        var session: SessionRecord
        var user: UserRecord
    }

    private let signer: TokenSigner
    private let store: any AuthStore
    private let clock: any ServerClock

    init(signer: TokenSigner, store: any AuthStore, clock: any ServerClock) {
        self.signer = signer
        self.store = store
        self.clock = clock
    }

    /// Checks a user's access token and that its session still exists: a token of a session
    /// that was signed out, revoked or whose user was deleted is refused even before it expires.
    func user(bearer token: String) async throws -> Authenticated {
        let now = clock.now()
        let claims = try await signer.verify(token, now: now)
        guard let sessionID = claims.sessionUUID, let userID = claims.userID else { throw AuthError.sessionGone }
        guard let (session, user) = try await store.sessionWithUser(id: sessionID) else { throw AuthError.sessionGone }
        guard session.userID == userID else { throw AuthError.sessionGone }
        if let notAfter = session.notAfter, notAfter <= now { throw AuthError.sessionExpiredForbidden }
        if user.isBanned(at: now) { throw AuthError.userBannedForbidden }
        return Authenticated(claims: claims, session: session, user: user)
    }

    /// Checks that `token` is a `service_role` key signed with the server secret.
    func admin(bearer token: String) async throws(AuthError) {
        let claims = try await signer.verify(token, now: clock.now())
        // API keys carry no session; a token of a user session is never an admin token.
        guard claims.isServiceRole, claims.sessionID == nil else { throw AuthError.notAdmin }
    }
}
