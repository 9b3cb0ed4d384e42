import Foundation

/// `GET /reauthenticate` and the nonce it mails: proof, shortly before a password change, that
/// the person holding the session still reads the account's email.
///
/// With secure password change on, a session older than 24 hours needs the emailed nonce to
/// change the password (GoTrue's rule); a fresher session does not.
struct Reauthentication: Sendable {
    /// How old a session may be and still change the password without a nonce.
    static let freshSessionAge: TimeInterval = 24 * 3600

    let store: any AuthStore
    let clock: any ServerClock
    let limits: RateLimits
    let tokens: OpaqueTokens
    let emailLinks: EmailLinks
    /// Whether a password change needs a nonce (`--secure-password-change`).
    let required: Bool

    /// Mails the signed-in user a nonce.
    func request(for signedIn: BearerAuthentication.Authenticated, ipAddress: String) async throws {
        let user = signedIn.user
        guard !user.email.isEmpty else {
            throw AuthError.validation("Reauthentication requires the user to have an email or a phone number")
        }
        guard user.emailConfirmedAt != nil else {
            throw AuthError.verifyEmailFirst
        }
        let slot = try await limits.admitEmail(to: user.email, for: .reauthentication)
        try await emailLinks.send(.reauthentication, to: user, address: user.email, redirectTo: nil, pkce: nil, ipAddress: ipAddress, slot: slot)
    }

    /// Checks that `signedIn` may change the password with `nonce`: nothing to check when not
    /// required or when the session is fresh; otherwise the nonce must be the user's live one,
    /// which this spends.
    func authorizePasswordChange(_ signedIn: BearerAuthentication.Authenticated, nonce: String?) async throws {
        guard required, clock.now().timeIntervalSince(signedIn.session.createdAt) > Self.freshSessionAge else { return }
        guard let nonce, !nonce.isEmpty else { throw AuthError.reauthenticationNeeded }
        let address = signedIn.user.email
        guard !address.isEmpty else { throw AuthError.reauthenticationNotValid }
        try await limits.checkCodeAttempts(for: address)
        guard let redeemed = try await store.consumeOneTimeToken(codeHash: tokens.codeHash(nonce, address: address), kinds: [.reauthentication]),
            redeemed.token.userID == signedIn.user.id
        else {
            try await limits.recordFailedCode(for: address)
            throw AuthError.reauthenticationNotValid
        }
        guard clock.now().timeIntervalSince(redeemed.token.createdAt) < emailLinks.settings.codeTTL else {
            throw AuthError.reauthenticationNotValid
        }
    }
}
