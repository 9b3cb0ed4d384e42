import Foundation
import HTTPTypes
import LatchkeyWire
import Logging

/// `DELETE /user`: a signed-in user deletes their own account (beyond GoTrue, which leaves this
/// to an edge function; on only with `--allow-self-deletion`). App Review requires apps that
/// let people create an account to let them delete it in the app (guideline 5.1.1(v)). Without
/// the setting the route answers 403 `self_deletion_disabled`, to a signed-in user only.
///
/// The session alone is not enough: a stolen or forgotten-unlocked device must not be able to
/// erase the account. The request proves a recent reauthentication:
/// - an account with a verified second factor: the session is `aal2`, with a factor verified in
///   the last ``recentVerification`` seconds (otherwise 401 `insufficient_aal`: verify a factor
///   again first);
/// - any other account with an email address or phone number: the nonce `GET /reauthenticate`
///   sent (`{"nonce": "…"}`), spent here (400 `reauthentication_needed` without it, 422
///   `reauthentication_not_valid` when wrong or expired);
/// - an anonymous user, who has neither: the session.
///
/// The user, their identities, factors, passkeys, one-time tokens and every session go in one
/// transaction with a `user_deleted` audit entry; then, off the request's path, a notice is
/// mailed to the address the account had, and each Apple refresh token kept for the account
/// (``AppleTokens``) is revoked at Apple, as App Review guideline 5.1.1(v) asks. A revocation
/// Apple refuses, or cannot be reached for, is logged (without the token) and audited
/// (`token_revoked` with `"revoked": false`), is not retried, and never undoes or holds up the
/// deletion. Any access token of the account stops working at once (its session is gone).
struct AccountDeletion: ServiceDependent {
    /// How recent a second-factor verification must be for an `aal2` session to delete the account.
    static let recentVerification: TimeInterval = 600

    let shared: ServiceDependencies
    let reauthentication: Reauthentication
    /// Sends the after-deletion notice.
    let mailer: any Mailer
    /// The site named in the notice.
    let siteURL: String
    /// Revokes the account's kept Apple refresh tokens.
    var appleTokens: AppleTokens? = nil

    /// What `DELETE /user` answers without `--allow-self-deletion`.
    static let disabled = AuthError(.forbidden, "self_deletion_disabled", "Deleting one's own account is not enabled on this server")

    static let aal2Required = AuthError(
        .unauthorized, "insufficient_aal", "A recently verified second factor (AAL2) is required to delete the account")

    /// Deletes the signed-in user's account after checking the reauthentication. Returns the
    /// work left after the answer (the notice), for tests to wait on.
    @discardableResult
    func delete(_ signedIn: BearerAuthentication.Authenticated, nonce: String?, ipAddress: String) async throws -> Task<Void, Never> {
        let user = signedIn.user
        try await authorize(signedIn, nonce: nonce)
        let audit = AuditEntry(
            action: .userDeleted, actorID: user.id, actorUsername: user.email,
            traits: ["scope": .string("self"), "session_id": .string(signedIn.session.id.lowercasedString)],
            ipAddress: ipAddress, createdAt: clock.now())
        // Read before the deletion takes them (they go with the user's row).
        let kept = try await appleTokens != nil ? store.providerRefreshTokens(userID: user.id) : []
        guard try await store.deleteUser(id: user.id, audit: audit) else { throw AuthError.userNotFound }
        logger.info("user deleted their account", metadata: ["user_id": "\(user.id)"])

        let notice = Self.notice(to: user.email, siteURL: siteURL)
        let (mailer, logger, appleTokens, store, clock) = (mailer, logger, appleTokens, store, clock)
        return Task {
            if let appleTokens {
                for token in kept where token.provider == AppleTokens.provider {
                    let outcome = await appleTokens.revoke(token)
                    var traits: [String: JSONValue] = [
                        "provider": .string(token.provider), "provider_id": .string(token.providerID), "scope": .string("account_deletion"),
                    ]
                    switch outcome {
                    case .revoked:
                        traits["revoked"] = .bool(true)
                        logger.info("Apple tokens revoked for a deleted account", metadata: ["user_id": "\(user.id)"])
                    case .failed(let reason):
                        traits["revoked"] = .bool(false)
                        traits["error"] = .string(String(reason.prefix(200)))
                        logger.warning(
                            "Apple tokens of a deleted account not revoked", metadata: ["user_id": "\(user.id)", "error": "\(reason)"])
                    }
                    try? await store.appendAudit(
                        AuditEntry(
                            action: .tokenRevoked, actorID: user.id, actorUsername: user.email, traits: traits, ipAddress: ipAddress,
                            createdAt: clock.now()))
                }
            }
            if let notice {
                do {
                    try await mailer.send(notice)
                } catch {
                    logger.warning(
                        "account-deletion notice not sent",
                        metadata: ["user_id": "\(user.id)", "error": "\(String(describing: error))"])
                }
            }
        }
    }

    /// The reauthentication rules above.
    private func authorize(_ signedIn: BearerAuthentication.Authenticated, nonce: String?) async throws {
        let user = signedIn.user
        let factors = try await store.factors(userID: user.id)
        if factors.contains(where: \.isVerified) {
            let now = clock.now().timeIntervalSince1970
            let verifiedRecently = signedIn.session.verifiedMethods.contains { method in
                method.method != signedIn.session.authMethod && now - TimeInterval(method.timestamp) <= Self.recentVerification
            }
            guard signedIn.session.aal == .aal2, verifiedRecently else { throw Self.aal2Required }
            return
        }
        if user.isAnonymous, user.email.isEmpty, user.phone.isEmpty { return }
        try await reauthentication.spendNonce(nonce, of: signedIn)
    }

    /// The notice mailed to `address` once the account is gone; `nil` without an address. It
    /// names no token and no link back into the deleted account.
    static func notice(to address: String, siteURL: String) -> MailMessage? {
        guard !address.isEmpty else { return nil }
        let body = """
            Your account at \(siteURL) was deleted, with everything it held: its sign-in methods, \
            second factors, passkeys and sessions.

            If you did not ask for this, contact the site's support: the deletion was made from a \
            signed-in device that had just proved it could read this mailbox or your second factor.
            """
        return MailMessage(to: address, subject: "Your account was deleted", body: body)
    }
}
