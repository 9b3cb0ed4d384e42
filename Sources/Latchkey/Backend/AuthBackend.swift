import Foundation

/// Which sessions a sign-out ends on the server.
public enum SignOutScope: String, Sendable, Hashable {
    /// Only this session (default).
    case local
    /// Every session of the user, on every device.
    case global
    /// Every other session of the user; this one stays signed in.
    case others
}

/// What kind of one-time token ``AuthBackend/verify(type:email:token:)`` checks.
public enum VerificationType: String, Sendable, Hashable {
    case signup
    case recovery
    case magiclink
    case invite
    case emailChange = "email_change"
    case email
}

/// How a sign-in code reaches a phone.
public enum PhoneChannel: String, Sendable, Hashable {
    /// A text message (the default).
    case sms
    /// A WhatsApp message (servers sending through Twilio or Twilio Verify).
    case whatsapp
}

/// The auth server, as ``SessionManager`` needs it. ``GoTrueBackend`` speaks GoTrue (the
/// Latchkey server, Supabase); implement this to put Latchkey in front of another server.
///
/// Throw ``BackendError`` so the manager can tell transient failures from definitive ones.
/// Sessions returned need not have their expiry anchored: the manager does that.
public protocol AuthBackend: Sendable {
    func signUp(email: String, password: String, data: [String: JSONValue]) async throws -> SignUpResult
    func signIn(email: String, password: String) async throws -> Session
    func refresh(refreshToken: String) async throws -> Session
    func signOut(accessToken: String, scope: SignOutScope) async throws
    func user(accessToken: String) async throws -> User
    func updateUser(accessToken: String, _ update: UserUpdate) async throws -> User
    func resendConfirmation(email: String) async throws
    func recoverPassword(email: String) async throws
    func verify(type: VerificationType, email: String, token: String) async throws -> Session
    /// Redeems an email-change code mailed to `email` (the current or the new address); `nil`
    /// when the server asks for the other address's code too (secure email change).
    func verifyEmailChange(email: String, token: String) async throws -> Session?

    /// Mails a sign-in link and six-digit code (`POST /otp`); creates the account first when
    /// `createUser` is true and there is none. With `codeChallenge` the link is a PKCE link.
    func sendSignInEmail(email: String, createUser: Bool, redirectTo: String?, codeChallenge: String?) async throws
    /// Mails a password-recovery link and code; with `codeChallenge` the link is a PKCE link.
    func recoverPassword(email: String, redirectTo: String?, codeChallenge: String?) async throws
    /// Texts a sign-in code to `phone` (`POST /otp` with `phone`) by SMS or WhatsApp
    /// (`channel`); creates the account first when `createUser` is true and there is none.
    func sendSignInSMS(phone: String, createUser: Bool, channel: PhoneChannel) async throws
    /// Redeems a code texted to `phone` (`POST /verify` type `sms`); the answer is the session.
    func verifyPhone(phone: String, token: String) async throws -> Session
    /// Trades the `code` of a PKCE link's redirect and its verifier for a session.
    func exchangeCode(_ authCode: String, codeVerifier: String) async throws -> Session
    /// Signs in a new anonymous user.
    func signInAnonymously(data: [String: JSONValue]) async throws -> Session
    /// Mails the signed-in user a nonce for ``UserUpdate/nonce`` (`GET /reauthenticate`).
    func reauthenticate(accessToken: String) async throws

    /// Enrolls an authenticator-app (TOTP) factor for the signed-in user (`POST /factors`); it
    /// stays unverified until a first code is verified.
    func enrollTOTPFactor(accessToken: String, friendlyName: String?, issuer: String?) async throws -> TOTPEnrollment
    /// Starts a challenge for `factorID` (`POST /factors/{id}/challenge`).
    func challengeFactor(accessToken: String, factorID: String) async throws -> FactorChallenge
    /// Verifies a code against a challenge (`POST /factors/{id}/verify`); the answer is the
    /// session at `aal2`, with new tokens.
    func verifyFactor(accessToken: String, factorID: String, challengeID: String, code: String) async throws -> Session
    /// Removes a factor (`DELETE /factors/{id}`); a verified one needs an `aal2` session.
    func unenrollFactor(accessToken: String, factorID: String) async throws
    /// Enrolls a phone factor for the signed-in user (`POST /factors` with `factor_type: phone`
    /// and `phone`); it stays unverified until a code texted to it is verified.
    func enrollPhoneFactor(accessToken: String, phone: String, friendlyName: String?) async throws -> Factor
    /// Starts a challenge for a phone factor (`POST /factors/{id}/challenge` with `channel`): the
    /// server texts the code to the factor's number by SMS or WhatsApp.
    func challengePhoneFactor(accessToken: String, factorID: String, channel: PhoneChannel) async throws -> FactorChallenge
    /// Enrolls a WebAuthn factor for the signed-in user (`POST /factors` with `factor_type:
    /// webauthn`); its challenge's ``FactorCeremony/create(_:)`` makes its credential.
    func enrollWebAuthnFactor(accessToken: String, friendlyName: String?) async throws -> Factor
    /// Verifies a WebAuthn factor's answer to a challenge (`POST /factors/{id}/verify` with
    /// `webauthn`); the answer is the session at `aal2`, with new tokens.
    func verifyWebAuthnFactor(accessToken: String, factorID: String, challengeID: String, response: WebAuthnFactorResponse) async throws -> Session

    /// Signs in with an ID token from `provider` (`POST /token?grant_type=id_token`): `nonce` is
    /// the raw nonce whose SHA-256 the token carries, `accessToken` the provider's access
    /// token when the ID token's `at_hash` binds one. With `linkingTo` (the signed-in user's
    /// access token) the identity is linked to that user; the answer is then a session of
    /// theirs.
    func signInWithIDToken(
        provider: String, idToken: String, nonce: String?, accessToken: String?, linkingTo userAccessToken: String?
    ) async throws -> Session
    /// ``signInWithIDToken(provider:idToken:nonce:accessToken:linkingTo:)`` with Sign in with
    /// Apple's authorization code (`apple_authorization_code`, a Latchkey addition), which
    /// Latchkey's server keeps the means to revoke at account deletion. A backend without it
    /// signs in without the code.
    func signInWithIDToken(
        provider: String, idToken: String, nonce: String?, accessToken: String?, appleAuthorizationCode: String?,
        linkingTo userAccessToken: String?
    ) async throws -> Session
    /// Where to send the browser to sign in with `provider` (`GET /authorize`); the sign-in
    /// comes back to `redirectTo` with `?code=` for the verifier `codeChallenge` was made from.
    func authorizeURL(provider: String, redirectTo: String, scopes: String?, codeChallenge: String) throws -> URL
    /// Where to send the browser to link `provider` to the signed-in user
    /// (`GET /user/identities/authorize`); it comes back to `redirectTo` as a sign-in does.
    func linkIdentityURL(accessToken: String, provider: String, redirectTo: String, scopes: String?, codeChallenge: String) async throws -> URL
    /// Removes one of the signed-in user's identities (`DELETE /user/identities/{id}`).
    func unlinkIdentity(accessToken: String, identityID: String) async throws

    /// Options for the signed-in user's authenticator to create a passkey with
    /// (`POST /passkeys/registration/options`).
    func passkeyRegistrationOptions(accessToken: String) async throws -> PasskeyChallenge<PasskeyCreationOptions>
    /// Verifies a new passkey against the challenge `challengeID` and adds it to the signed-in
    /// user's account (`POST /passkeys/registration/verify`).
    func verifyPasskeyRegistration(accessToken: String, challengeID: String, registration: PasskeyRegistration) async throws -> Passkey
    /// Options for an authenticator to sign in with any passkey of the relying party
    /// (`POST /passkeys/authentication/options`; no user is signed in).
    func passkeySignInOptions() async throws -> PasskeyChallenge<PasskeyRequestOptions>
    /// Verifies a passkey's assertion against the challenge `challengeID`; the answer is the
    /// session of the passkey's account (`POST /passkeys/authentication/verify`).
    func verifyPasskeySignIn(challengeID: String, assertion: PasskeyAssertion) async throws -> Session
    /// The signed-in user's passkeys, oldest first (`GET /passkeys`).
    func listPasskeys(accessToken: String) async throws -> [Passkey]
    /// Renames one of the signed-in user's passkeys (`PATCH /passkeys/{id}`).
    func renamePasskey(accessToken: String, passkeyID: String, friendlyName: String) async throws -> Passkey
    /// Removes one of the signed-in user's passkeys (`DELETE /passkeys/{id}`).
    func deletePasskey(accessToken: String, passkeyID: String) async throws
    /// Deletes the signed-in user's account (`DELETE /user`, Latchkey's server with
    /// `--allow-self-deletion`), with the reauthentication nonce when the account needs one.
    func deleteUser(accessToken: String, nonce: String?) async throws

    /// The apps the signed-in user let sign in as them through the server's OAuth 2.1 server,
    /// the most recently allowed first (`GET /user/oauth/grants`).
    func authorizedApps(accessToken: String) async throws -> [AuthorizedApp]
    /// Revokes the signed-in user's grant to the app with OAuth client ID `clientID`, ending the
    /// app's sessions (`DELETE /user/oauth/grants?client_id=`).
    func revokeAuthorizedApp(accessToken: String, clientID: String) async throws
}

/// Backends written before these flows existed answer them as unsupported.
extension AuthBackend {
    public func deleteUser(accessToken: String, nonce: String?) async throws {
        throw BackendError.unsupported("account deletion")
    }
    public func authorizedApps(accessToken: String) async throws -> [AuthorizedApp] {
        throw BackendError.unsupported("authorized apps")
    }
    public func revokeAuthorizedApp(accessToken: String, clientID: String) async throws {
        throw BackendError.unsupported("authorized apps")
    }
    public func sendSignInEmail(email: String, createUser: Bool, redirectTo: String?, codeChallenge: String?) async throws {
        throw BackendError.unsupported("email sign-in")
    }
    public func recoverPassword(email: String, redirectTo: String?, codeChallenge: String?) async throws {
        try await recoverPassword(email: email)
    }
    public func sendSignInSMS(phone: String, createUser: Bool, channel: PhoneChannel) async throws {
        throw BackendError.unsupported("phone sign-in")
    }
    public func verifyPhone(phone: String, token: String) async throws -> Session {
        throw BackendError.unsupported("phone sign-in")
    }
    public func exchangeCode(_ authCode: String, codeVerifier: String) async throws -> Session {
        throw BackendError.unsupported("PKCE code exchange")
    }
    public func verifyEmailChange(email: String, token: String) async throws -> Session? {
        try await verify(type: .emailChange, email: email, token: token)
    }
    public func signInAnonymously(data: [String: JSONValue]) async throws -> Session {
        throw BackendError.unsupported("anonymous sign-in")
    }
    public func reauthenticate(accessToken: String) async throws {
        throw BackendError.unsupported("reauthentication")
    }
    public func enrollTOTPFactor(accessToken: String, friendlyName: String?, issuer: String?) async throws -> TOTPEnrollment {
        throw BackendError.unsupported("multi-factor authentication")
    }
    public func challengeFactor(accessToken: String, factorID: String) async throws -> FactorChallenge {
        throw BackendError.unsupported("multi-factor authentication")
    }
    public func verifyFactor(accessToken: String, factorID: String, challengeID: String, code: String) async throws -> Session {
        throw BackendError.unsupported("multi-factor authentication")
    }
    public func unenrollFactor(accessToken: String, factorID: String) async throws {
        throw BackendError.unsupported("multi-factor authentication")
    }
    public func enrollPhoneFactor(accessToken: String, phone: String, friendlyName: String?) async throws -> Factor {
        throw BackendError.unsupported("phone factors")
    }
    public func challengePhoneFactor(accessToken: String, factorID: String, channel: PhoneChannel) async throws -> FactorChallenge {
        throw BackendError.unsupported("phone factors")
    }
    public func enrollWebAuthnFactor(accessToken: String, friendlyName: String?) async throws -> Factor {
        throw BackendError.unsupported("WebAuthn factors")
    }
    public func verifyWebAuthnFactor(
        accessToken: String, factorID: String, challengeID: String, response: WebAuthnFactorResponse
    ) async throws -> Session {
        throw BackendError.unsupported("WebAuthn factors")
    }
    public func signInWithIDToken(
        provider: String, idToken: String, nonce: String?, accessToken: String?, linkingTo userAccessToken: String?
    ) async throws -> Session {
        throw BackendError.unsupported("ID-token sign-in")
    }
    public func signInWithIDToken(
        provider: String, idToken: String, nonce: String?, accessToken: String?, appleAuthorizationCode: String?,
        linkingTo userAccessToken: String?
    ) async throws -> Session {
        try await signInWithIDToken(provider: provider, idToken: idToken, nonce: nonce, accessToken: accessToken, linkingTo: userAccessToken)
    }
    public func authorizeURL(provider: String, redirectTo: String, scopes: String?, codeChallenge: String) throws -> URL {
        throw BackendError.unsupported("provider sign-in")
    }
    public func linkIdentityURL(accessToken: String, provider: String, redirectTo: String, scopes: String?, codeChallenge: String) async throws -> URL
    {
        throw BackendError.unsupported("identity linking")
    }
    public func unlinkIdentity(accessToken: String, identityID: String) async throws {
        throw BackendError.unsupported("identity linking")
    }
    public func passkeyRegistrationOptions(accessToken: String) async throws -> PasskeyChallenge<PasskeyCreationOptions> {
        throw BackendError.unsupported("passkeys")
    }
    public func verifyPasskeyRegistration(accessToken: String, challengeID: String, registration: PasskeyRegistration) async throws -> Passkey {
        throw BackendError.unsupported("passkeys")
    }
    public func passkeySignInOptions() async throws -> PasskeyChallenge<PasskeyRequestOptions> {
        throw BackendError.unsupported("passkeys")
    }
    public func verifyPasskeySignIn(challengeID: String, assertion: PasskeyAssertion) async throws -> Session {
        throw BackendError.unsupported("passkeys")
    }
    public func listPasskeys(accessToken: String) async throws -> [Passkey] {
        throw BackendError.unsupported("passkeys")
    }
    public func renamePasskey(accessToken: String, passkeyID: String, friendlyName: String) async throws -> Passkey {
        throw BackendError.unsupported("passkeys")
    }
    public func deletePasskey(accessToken: String, passkeyID: String) async throws {
        throw BackendError.unsupported("passkeys")
    }
}
