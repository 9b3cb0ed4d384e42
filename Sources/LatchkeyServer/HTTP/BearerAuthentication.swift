import Foundation

/// Who presents a bearer token: a signed-in user with a live session, or an administrator key.
///
/// As in GoTrue (`requireAuthentication`, `requireAdminCredentials`): any token signed with the
/// server's key and algorithm whose `role` is an admin role passes the admin check, with or
/// without `sub`, `exp` or `iat` (Supabase's service keys have no `sub`, older ones no `iat`);
/// an `exp` in the past is refused. Stricter than GoTrue: a token of a user session is never an
/// admin token, and a user's token must belong to a live session.
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
    private let adminRoles: Set<String>

    init(signer: TokenSigner, store: any AuthStore, clock: any ServerClock, adminRoles: [String] = ServerConfiguration.defaultJWTAdminRoles) {
        self.signer = signer
        self.store = store
        self.clock = clock
        self.adminRoles = Set(adminRoles)
    }

    /// Checks a user's access token and that its session still exists: a token of a session
    /// that was signed out, revoked or whose user was deleted is refused even before it expires.
    func user(bearer token: String) async throws -> Authenticated {
        let now = clock.now()
        return try await signedIn(try await signer.verify(token, now: now), now: now)
    }

    /// Checks that `token` is an administrator key: signed with the server's key, one of the
    /// admin roles, no session.
    func admin(bearer token: String) async throws {
        let now = clock.now()
        let claims = try await signer.verify(token, now: now)
        if claims.sessionClaim != nil {
            // A user session's token: GoTrue first checks that its session is still valid; such a
            // token is then never an administrator's here, whatever role it claims.
            _ = try await signedIn(claims, now: now)
            throw AuthError.notAdmin
        }
        guard adminRoles.contains(claims.role) else { throw AuthError.notAdmin }
    }

    private func signedIn(_ claims: VerifiedClaims, now: Date) async throws -> Authenticated {
        guard let subject = claims.sub, !subject.isEmpty else { throw AuthError.missingSubClaim }
        guard let userID = UUID(uuidString: subject) else { throw AuthError.subClaimNotUUID }
        guard let sessionClaim = claims.sessionClaim else { throw AuthError.sessionGone }
        guard let sessionID = UUID(uuidString: sessionClaim) else { throw AuthError.sessionClaimNotUUID }
        guard let (session, user) = try await store.sessionWithUser(id: sessionID), session.userID == userID else {
            // GoTrue looks the user up before the session: a deleted user's token says so.
            if try await store.user(id: userID) == nil { throw AuthError.userGone }
            throw AuthError.sessionGone
        }
        if let notAfter = session.notAfter, notAfter <= now { throw AuthError.sessionExpiredForbidden }
        if user.isBanned(at: now) { throw AuthError.userBannedForbidden }
        return Authenticated(claims: claims, session: session, user: user)
    }
}
