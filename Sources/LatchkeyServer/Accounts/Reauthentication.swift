import Foundation

/// `GET /reauthenticate` and the nonce it sends: proof, shortly before a password change, that
/// the person holding the session still reads the account's email — or, for an account with
/// only a phone number, its texts (as GoTrue: the nonce goes by SMS, and is checked as that
/// number's codes are, by the provider itself with Twilio Verify).
///
/// With secure password change on, a session older than 24 hours needs the nonce to
/// change the password (GoTrue's rule); a fresher session does not.
struct Reauthentication: ServiceDependent {
    /// How old a session may be and still change the password without a nonce.
    static let freshSessionAge: TimeInterval = 24 * 3600

    let shared: ServiceDependencies
    let emailLinks: EmailLinks
    /// Whether a password change needs a nonce (`--secure-password-change`).
    let required: Bool
    /// Texts the nonce to a phone-only account; `nil` while phone sign-in is off.
    var phoneCodes: PhoneCodes? = nil

    /// Sends the signed-in user a nonce: by email, or by SMS to an account with only a number.
    func request(for signedIn: BearerAuthentication.Authenticated, ipAddress: String) async throws {
        let user = signedIn.user
        guard !user.email.isEmpty else {
            guard !user.phone.isEmpty else {
                throw AuthError.validation("Reauthentication requires the user to have an email or a phone number")
            }
            guard user.phoneConfirmedAt != nil else { throw AuthError.verifyPhoneFirst }
            guard let phoneCodes else { throw AuthError.phoneProviderDisabled() }
            try await phoneCodes.send(.reauthentication, to: user, phone: user.phone, channel: .sms, ipAddress: ipAddress)
            return
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
        try await spendNonce(nonce, of: signedIn)
    }

    /// Checks that `nonce` is the signed-in user's live reauthentication nonce, and spends it:
    /// 400 `reauthentication_needed` without one, 422 `reauthentication_not_valid` for a wrong,
    /// spent or expired one (wrong guesses count against the address's code attempts).
    func spendNonce(_ nonce: String?, of signedIn: BearerAuthentication.Authenticated) async throws {
        guard let nonce, !nonce.isEmpty else { throw AuthError.reauthenticationNeeded }
        let address = signedIn.user.email
        if address.isEmpty, !signedIn.user.phone.isEmpty, let phoneCodes {
            return try await authorizeByPhone(signedIn, nonce: nonce, codes: phoneCodes)
        }
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

    /// A phone-only account's nonce: the code texted to its number for reauthentication, spent
    /// as that number's codes are (guesses counted, the code's lifetime, the provider asked
    /// with Twilio Verify) and only for this user. A wrong one is GoTrue's 422
    /// `reauthentication_not_valid`; with Twilio Verify, its 403 `otp_expired`.
    private func authorizeByPhone(_ signedIn: BearerAuthentication.Authenticated, nonce: String, codes: PhoneCodes) async throws {
        let redeemed: (token: OneTimeToken, user: UserRecord)
        do {
            redeemed = try await codes.redeem(nonce, phone: signedIn.user.phone, purpose: .reauthentication)
        } catch let error as AuthError where error == .codeExpired && !codes.providerChecksCodes {
            throw AuthError.reauthenticationNotValid
        }
        guard redeemed.user.id == signedIn.user.id else { throw AuthError.reauthenticationNotValid }
    }
}
