import Foundation
import LatchkeyWire

/// The email-and-password step of the OAuth server's hosted pages (the consent page, the apps
/// page), which keep no signed-in browser session: the credentials are checked exactly as
/// `POST /token?grant_type=password` checks them (rate limits, lockout, the attempt hook), and
/// the session that check starts ends before the account is handed back.
struct HostedPasswordCheck: Sendable {
    let password: PasswordGrant
    let authentication: BearerAuthentication
    let store: any AuthStore

    /// The account the credentials sign in to, and whether it has two-step verification (which
    /// these pages cannot ask for).
    /// - Throws: the password grant's ``AuthError`` (``message(for:)`` words it for the page).
    func account(email: String, password given: String, ipAddress: String) async throws -> (user: UserRecord, hasSecondFactor: Bool) {
        let session = try await password.session(for: PasswordGrantBody(email: email, password: given), ipAddress: ipAddress)
        let signedIn = try await authentication.user(bearer: session.access_token)
        try await store.endSessions(userID: signedIn.user.id, except: nil, only: signedIn.session.id, audit: nil)
        return (signedIn.user, try await store.factors(userID: signedIn.user.id).hasVerifiedFactor)
    }

    /// What a page says when the check refused: the same words for an unknown email and a wrong
    /// password.
    static func message(for error: AuthError) -> String {
        error.code == "invalid_credentials" ? "The email or password is not right." : error.message
    }
}
