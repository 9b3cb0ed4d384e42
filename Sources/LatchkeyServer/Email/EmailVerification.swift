import Foundation
import LatchkeyWire
import Logging

/// `POST /verify` and `GET /verify`: redeeming the token of an email, by its link or its code.
///
/// A link's token (`token_hash`, or `token` in the link itself) or an email's code with its
/// address (`email` and `token`) each redeem the token once: redeeming one spends the other.
/// Wrong codes count against the address and are refused for a while after ten. Following a
/// link whose token starts `pkce_` ends in a redirect with `?code=` for
/// `POST /token?grant_type=pkce`, not in a session.
struct EmailVerification: ServiceDependent {
    /// The `type` values of `/verify`.
    enum VerificationType: String, Sendable {
        case signup
        case invite
        case recovery
        case magiclink
        case emailChange = "email_change"
        /// A code from any sign-up confirmation or magic-link email (GoTrue's `email` type).
        case email

        var kinds: [OneTimeToken.Kind] {
            switch self {
            case .signup, .invite: [.confirmation]
            case .recovery, .magiclink: [.recovery]
            case .emailChange: [.emailChange, .emailChangeCurrent]
            case .email: [.confirmation, .recovery]
            }
        }

        /// The authentication method of a PKCE flow started for this type.
        var authenticationMethod: String { self == .signup ? "email/signup" : rawValue }

        init(parsing raw: String?) throws(AuthError) {
            guard let raw, !raw.isEmpty else { throw AuthError.validation("Verify requires a verification type") }
            guard let value = VerificationType(rawValue: raw) else {
                if raw == "sms" || raw == "phone_change" { throw AuthError.codeExpired }
                throw AuthError.validation("Invalid email verification type")
            }
            self = value
        }
    }

    /// What `POST /verify` answers: a session, or, for the first of the two confirmations of a
    /// secure email change, GoTrue's message asking for the other one.
    enum Outcome: Encodable, Sendable {
        case session(SessionResponse)
        case awaitingOtherAddress

        /// GoTrue's words for the first of two confirmations.
        static let awaitingOtherAddressMessage = "Confirmation link accepted. Please proceed to confirm link sent to the other email"

        private struct Message: Encodable {
            var msg: String
            var code: String
        }

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .session(let session): try session.encode(to: encoder)
            case .awaitingOtherAddress: try Message(msg: Self.awaitingOtherAddressMessage, code: "200").encode(to: encoder)
            }
        }
    }

    let shared: ServiceDependencies
    let settings: EmailLinks.Settings

    /// `POST /verify`: a session for a valid link token or code.
    func verify(_ body: VerifyBody, ipAddress: String) async throws -> Outcome {
        let type = try VerificationType(parsing: body.type)
        let token = body.token ?? ""
        let tokenHash = body.token_hash ?? ""
        guard token.isEmpty != tokenHash.isEmpty else { throw AuthError.validation("Verify requires either a token or a token hash") }
        try await limits.admitVerification(from: ipAddress)
        let redeemed: (token: OneTimeToken, user: UserRecord)
        if !tokenHash.isEmpty {
            guard body.email == nil, body.phone == nil, body.redirect_to == nil else {
                throw AuthError.validation("Only the token_hash and type should be provided")
            }
            redeemed = try await redeemLink(tokenHash, type: type)
        } else if let rawEmail = body.email, body.phone == nil {
            let email = try InputRules.normalizedEmail(rawEmail)
            redeemed = try await redeemCode(token, address: email, type: type)
        } else if body.phone != nil, body.email == nil {
            throw AuthError.codeExpired
        } else {
            throw AuthError.validation("Only an email address or phone number should be provided on verify")
        }
        guard let user = try await apply(redeemed.token, to: redeemed.user, ipAddress: ipAddress) else { return .awaitingOtherAddress }
        return .session(try await sessions.start(for: user, method: type == .recovery ? "recovery" : "otp", ipAddress: ipAddress))
    }

    /// `GET /verify`, the link a user clicks: verifies, and returns where to redirect — the app,
    /// with the session in the URL fragment (never the query, so it is not sent to servers or
    /// kept in their logs); for a PKCE link, with `?code=`; or with GoTrue's `error`,
    /// `error_code` and `error_description` when the link is no good (in the fragment, and for
    /// a PKCE link in the query as well).
    func follow(type rawType: String?, token: String?, redirectTo: String?, ipAddress: String) async throws -> String {
        let redirect = settings.redirects.resolve(redirectTo)
        let isPKCE = token?.hasPrefix("pkce_") ?? false
        do {
            let (type, applied) = try await redeemLinkAndApply(type: rawType, token: token, ipAddress: ipAddress)
            guard let user = applied else {
                // GoTrue's answer to the first of two confirmations: its message, in the
                // fragment (and for a PKCE link in the query too).
                let message = URLQueryItem(name: "message", value: Outcome.awaitingOtherAddressMessage)
                let target = isPKCE ? ErrorRedirect.adding(query: [message], to: redirect) : redirect
                var fragment = URLComponents()
                fragment.queryItems = [message, URLQueryItem(name: "sb", value: "")]
                return ErrorRedirect.replacingFragment(of: target, with: fragment.percentEncodedQuery ?? "")
            }
            if isPKCE {
                let code = OpaqueTokens.random()
                guard
                    try await store.issueAuthCode(
                        userID: user.id, authenticationMethod: type.authenticationMethod, authCodeHash: OpaqueTokens.hash(code), issuedAt: clock.now()
                    ) != nil
                else {
                    throw AuthError.noFlowStateForLink
                }
                return ErrorRedirect.adding(query: [URLQueryItem(name: "code", value: code)], to: redirect)
            }
            let session = try await sessions.start(for: user, method: type == .recovery ? "recovery" : "otp", ipAddress: ipAddress)
            return ErrorRedirect.replacingFragment(of: redirect, with: session.fragment(type: type.rawValue))
        } catch {
            guard let error = AuthError(answering: error) else { throw error }
            return ErrorRedirect.url(for: error, to: redirect, inQuery: isPKCE)
        }
    }

    // MARK: Redeeming

    /// What following a link does before anything is handed out: spends its token and applies
    /// it (confirms the address, or the email change). Returns the link's type and the user as
    /// saved, `nil` when it was the first of the two confirmations of a secure email change. A
    /// link with no token, an unknown type or a spent or expired token is refused.
    func redeemLinkAndApply(type rawType: String?, token: String?, ipAddress: String) async throws -> (type: VerificationType, user: UserRecord?) {
        let type = try VerificationType(parsing: rawType)
        guard let token, !token.isEmpty else { throw AuthError.validation("Verify requires a token or a token hash") }
        try await limits.admitVerification(from: ipAddress)
        let redeemed = try await redeemLink(token, type: type)
        return (type, try await apply(redeemed.token, to: redeemed.user, ipAddress: ipAddress))
    }

    /// Spends the token a link carries. Unknown, spent, mistyped and expired tokens are all 403
    /// `otp_expired`.
    private func redeemLink(_ token: String, type: VerificationType) async throws -> (token: OneTimeToken, user: UserRecord) {
        guard let redeemed = try await store.consumeOneTimeToken(hash: OpaqueTokens.hash(token), kinds: type.kinds) else {
            throw AuthError.otpExpired
        }
        let ttl = redeemed.token.kind == .recovery ? settings.recoveryTokenTTL : settings.confirmationTokenTTL
        guard clock.now().timeIntervalSince(redeemed.token.createdAt) < ttl else { throw AuthError.otpExpired }
        return redeemed
    }

    /// Spends the token whose code `code` was mailed to `address`. A wrong code counts against
    /// the address; all failures are 403 `otp_expired` "Token has expired or is invalid".
    private func redeemCode(_ code: String, address: String, type: VerificationType) async throws -> (token: OneTimeToken, user: UserRecord) {
        let redeemed = try await store.spendSentCode(code, sentTo: address, kinds: type.kinds, tokens: tokens, limits: limits)
        guard clock.now().timeIntervalSince(redeemed.token.createdAt) < settings.codeTTL else { throw AuthError.codeExpired }
        return redeemed
    }

    /// What redeeming `token` does to `user`: confirms the address (sign-up, invitation, and
    /// recovery or magic link, which prove it too), or applies the email change. Returns the
    /// user as saved, or `nil` when the token is one of an email change's two and the other
    /// (mailed to the other address) is not yet redeemed: the address changes only after both.
    private func apply(_ token: OneTimeToken, to user: UserRecord, ipAddress: String) async throws -> UserRecord? {
        let now = clock.now()
        if user.isBanned(at: now) { throw AuthError.userBannedForbidden }
        var updated = user
        updated.updatedAt = now
        var unproven = UnprovenAccess()
        switch token.kind {
        case .confirmation, .recovery:
            guard token.relatesTo == user.email else { throw AuthError.otpExpired }
            if updated.emailConfirmedAt == nil {
                updated.emailConfirmedAt = now
                unproven = Self.unproven(by: token, on: user)
            }
        case .emailChange, .emailChangeCurrent:
            guard let newEmail = updated.newEmail, token.relatesTo == (token.kind == .emailChange ? newEmail : user.email) else {
                throw AuthError.otpExpired
            }
            let other: OneTimeToken.Kind = token.kind == .emailChange ? .emailChangeCurrent : .emailChange
            if try await store.hasOneTimeToken(userID: user.id, kind: other) { return nil }
            if let owner = try await store.user(email: newEmail), owner.id != user.id { throw AuthError.emailExists }
            updated.email = newEmail
            updated.newEmail = nil
            updated.emailChangeSentAt = nil
            updated.emailConfirmedAt = now
            updated.isAnonymous = false
        case .reauthentication, .phoneChange:
            throw AuthError.otpExpired
        }
        let audit = AuditEntry(
            action: .userModified, actorID: user.id, actorUsername: updated.email,
            traits: ["verified": .string(token.kind.rawValue)], ipAddress: ipAddress, createdAt: now)
        if unproven.isEmpty {
            try await store.updateUser(updated, audit: audit)
        } else {
            updated = try await removing(unproven, from: updated, audit: audit, ipAddress: ipAddress)
        }
        if updated.email != user.email, !user.email.isEmpty {
            notices.send(.emailChanged(oldEmail: user.email), about: updated, to: user.email)
        }
        return updated
    }

    // MARK: Pre-account takeover

    /// What an account nobody has proven yet holds that confirming its address does not prove:
    /// a password and identities someone may have put there with another person's address.
    struct UnprovenAccess: Sendable, Equatable {
        var password = false
        var identities = false

        var isEmpty: Bool { !password && !identities }
    }

    /// What redeeming `token` does not prove on `user`, whose address was unconfirmed. Nothing
    /// when the account's phone number is confirmed (its owner has proven it). A password is
    /// proven only by the sign-up confirmation issued with the account itself, so by the one
    /// who chose it: a confirmation sent again (`/resend`, a repeated sign-up), a magic link or
    /// a recovery proves the address alone. Identities at providers are never proven by an
    /// email: an identity whose provider verified the address would have confirmed it.
    static func unproven(by token: OneTimeToken, on user: UserRecord) -> UnprovenAccess {
        guard user.emailConfirmedAt == nil, user.phoneConfirmedAt == nil else { return UnprovenAccess() }
        let issuedWithAccount = token.kind == .confirmation && token.createdAt == user.createdAt
        return UnprovenAccess(password: user.passwordHash != nil && !issuedWithAccount, identities: user.hasLinkedIdentities)
    }

    /// Saves `user` confirmed without what `unproven` names, in one transaction, and tells the
    /// address what went (the password changed notice, an identity unlinked notice for each),
    /// whether or not those notices are on.
    private func removing(_ unproven: UnprovenAccess, from user: UserRecord, audit: AuditEntry, ipAddress: String) async throws -> UserRecord {
        let (saved, removed) = try await store.changeIdentities(IdentityLookup(userID: user.id)) {
            state throws -> IdentityPlan<(UserRecord, [IdentityRecord])> in
            var updated = user
            if unproven.password { updated.passwordHash = nil }
            let removed = unproven.identities ? state.userIdentities : []
            var changes: [IdentityChange] = removed.map { .deleteIdentity(id: $0.id) }
            if unproven.identities {
                updated.appMetadata["providers"] = .array([.string("email")])
                updated.appMetadata["provider"] = .string("email")
            }
            changes.insert(.updateUser(updated), at: 0)
            changes.append(.audit(audit))
            for identity in removed {
                changes.append(
                    .audit(
                        AuditEntry(
                            action: .identityUnlinked, actorID: user.id, actorUsername: user.email,
                            traits: [
                                "identity_id": .string(identity.id.lowercasedString), "provider": .string(identity.provider),
                                "provider_id": .string(identity.subject), "reason": .string("unproven_by_email_confirmation"),
                            ], ipAddress: ipAddress, createdAt: audit.createdAt)))
            }
            return IdentityPlan(changes: changes, result: (updated, removed))
        }
        logger.info(
            "email confirmation removed what it did not prove",
            metadata: ["user_id": "\(user.id)", "password": "\(unproven.password)", "identities": "\(removed.count)"])
        // Sent even with these notices off: nobody asked for these removals.
        if unproven.password { notices.send(.passwordChanged, about: saved, evenWhenOff: true) }
        for identity in removed { notices.send(.identityUnlinked(provider: identity.provider), about: saved, evenWhenOff: true) }
        return saved
    }
}

extension FeatureDependencies {
    /// `POST/GET /verify`, for the email routes and the hosted pages.
    var verification: EmailVerification { EmailVerification(shared: shared, settings: linkSettings) }
}
