import Foundation
import HTTPTypes
import LatchkeyWire

/// Passkeys on the hosted pages: "Add a passkey instead" on the set-new-password page of a
/// recovery or invitation link, and a "Sign in with a passkey" page an app can open in a browser
/// (an `ASWebAuthenticationSession`) to get a session without any WebAuthn code of its own.
///
/// Offered only when passkeys are on and the server's own origin (its external URL's
/// `scheme://host[:port]`) is one of the relying party's origins: the browser puts the page's
/// origin in what the authenticator signs, and the ceremony code accepts only listed origins.
/// The pages run one same-origin script (`welcome/passkey.js`); every ceremony is the one the
/// `/passkeys` routes run (``PasskeyRegistration``, ``PasskeySignIn``).
///
/// - Adding a passkey is authorised exactly as the password form's post is
///   (``HostedPages/formSession(ticket:csrf:crossSite:)``: the ticket cookie, its CSRF value,
///   not cross-site). The ticket's session is a recovery session, so it is `aal1`: a user with a
///   verified second factor is refused (GoTrue's rule for managing passkeys), and the page says
///   so instead of offering the button. Once the passkey is stored, every session of the user
///   ends — the ticket's too, which spends it — as a password change from the page does.
/// - Signing in lands on `redirect_to` (checked against the redirect allow list, else the site
///   URL) with `?code=` when the page was opened with a PKCE challenge, or the session in the
///   fragment, as a provider sign-in in the browser does (``BrowserSignIn``).
struct HostedPasskeys: Sendable {
    let pages: HostedPages
    let registration: PasskeyRegistration
    let signIn: PasskeySignIn
    let store: any AuthStore
    let clock: any ServerClock
    let settings: PasskeySettings
    let redirects: RedirectPolicy
    /// CAPTCHA protection is on: the passkey sign-in options need a token the page cannot get
    /// (its policy loads no third-party script), so the sign-in page is not offered.
    var captchaEnabled = false

    /// What `POST /welcome/passkey/registration/options` answers.
    typealias CreationOptions = PasskeyOptionsResponse<PublicKeyCredentialCreationOptionsJSON>

    /// What the set-new-password page offers besides a password.
    enum Offer: Sendable, Equatable {
        /// Passkeys are off, or the server's origin is not a relying party origin.
        case none
        /// "Add a passkey instead".
        case passkey
        /// The user has a verified second factor: the page says to add a passkey in the app.
        case needsSecondFactor
    }

    /// The body of the pages' passkey posts: the form's CSRF value (adding a passkey), the
    /// ceremony's `challenge_id` and `credential`, and the sign-in page's own parameters.
    struct Body: Decodable, Sendable {
        var csrf: String?
        var challenge_id: String?
        var credential: JSONValue?
        var redirect_to: String?
        var code_challenge: String?
        var code_challenge_method: String?

        var ceremony: PasskeyVerifyWire { PasskeyVerifyWire(challenge_id: challenge_id, credential: credential) }
    }

    /// Whether the pages offer passkeys: they are on, and the server's own origin is one the
    /// relying party lists.
    var isOffered: Bool {
        guard settings.enabled, let own = Self.origin(of: redirects.origin.url) else { return false }
        return settings.origins.contains { Self.origin(of: $0) == own }
    }

    /// Whether the sign-in page is offered: passkeys are, and CAPTCHA protection is off.
    var isSignInOffered: Bool { isOffered && !captchaEnabled }

    /// `scheme://host[:port]` of `url`, lowercased, without the scheme's default port.
    static func origin(of url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            let host = components.host?.lowercased(), !host.isEmpty
        else { return nil }
        let defaultPort = ["http": 80, "https": 443][scheme]
        let port = components.port.flatMap { $0 == defaultPort ? nil : $0 }
        return scheme + "://" + host + (port.map { ":\($0)" } ?? "")
    }

    // MARK: Adding a passkey from the set-new-password page

    /// What `form`'s page offers.
    func offer(on form: HostedPages.PasswordForm) async throws -> Offer {
        guard isOffered else { return .none }
        do {
            try await registration.ceremonies.requireManagementAssurance(of: form.user, in: form.session)
            return .passkey
        } catch let error as AuthError where error == .aal2RequiredForPasskeys {
            return .needsSecondFactor
        }
    }

    /// `POST /welcome/passkey/registration/options`: creation options for the ticket's user.
    func registrationOptions(_ body: Body, ticket: String?, crossSite: Bool) async throws -> CreationOptions {
        let (session, user) = try await formSession(body, ticket: ticket, crossSite: crossSite)
        return try await Self.explainingAssurance { try await registration.options(for: user, in: session) }
    }

    /// `POST /welcome/passkey/registration/verify`: stores the passkey, then ends every session
    /// of the user (the ticket's among them). A refused ticket, CSRF value or credential changes
    /// nothing but the challenge, which its first verify spends.
    func register(_ body: Body, ticket: String?, crossSite: Bool, ipAddress: String) async throws -> PasskeyResponse {
        let (session, user) = try await formSession(body, ticket: ticket, crossSite: crossSite)
        let passkey = try await Self.explainingAssurance {
            try await registration.verify(body.ceremony, for: user, in: session, ipAddress: ipAddress)
        }
        try await store.endSessions(userID: user.id, except: nil, only: nil, audit: nil)
        return passkey
    }

    private func formSession(_ body: Body, ticket: String?, crossSite: Bool) async throws -> (SessionRecord, UserRecord) {
        guard isOffered else { throw AuthError.hostedPasskeysUnavailable }
        do {
            let (session, user, _) = try await pages.formSession(ticket: ticket, csrf: body.csrf, crossSite: crossSite)
            return (session, user)
        } catch let refusal as HostedPages.Refusal {
            throw refusal == .forged ? AuthError.hostedPageForged : AuthError.hostedFormExpired
        }
    }

    /// `operation`, with the `aal2` refusal worded for a person on the page.
    private static func explainingAssurance<T>(_ operation: () async throws -> T) async throws -> T {
        do {
            return try await operation()
        } catch let error as AuthError where error == .aal2RequiredForPasskeys {
            throw AuthError.hostedPasskeyNeedsSecondFactor
        }
    }

    // MARK: Signing in

    /// The PKCE challenge the sign-in page was opened with (`nil`: the implicit flow); 400
    /// `validation_failed` for a malformed one, as `/authorize` answers.
    static func challenge(code: String?, method: String?) throws(AuthError) -> PKCEChallenge? {
        try PKCEChallenge(challenge: code, method: method)
    }

    /// `POST /welcome/passkey/sign-in`: verifies the assertion and answers where the browser
    /// goes: `redirect_to` (or the site URL) with `?code=` for a PKCE page, or with the session
    /// in the fragment.
    func signIn(_ body: Body, crossSite: Bool, ipAddress: String) async throws -> String {
        guard isSignInOffered else { throw AuthError.hostedPasskeysUnavailable }
        guard !crossSite else { throw AuthError.hostedPageForged }
        let pkce = try Self.challenge(code: body.code_challenge, method: body.code_challenge_method)
        let redirectTo = redirects.resolve(body.redirect_to)
        guard let pkce else {
            let session = try await signIn.verify(body.ceremony, ipAddress: ipAddress)
            return ErrorRedirect.replacingFragment(of: redirectTo, withSession: session)
        }
        let user = try await signIn.authenticate(body.ceremony)
        let code = try await store.issueAuthorizationCode(
            userID: user.id, authenticationMethod: "passkey", codeChallenge: pkce.challenge, codeChallengeMethod: pkce.method, at: clock.now())
        return ErrorRedirect.adding(query: [URLQueryItem(name: "code", value: code)], to: redirectTo)
    }
}

/// The hosted pages' passkey answers, in GoTrue's error shape, for the page's script to show.
extension AuthError {
    static let hostedPasskeysUnavailable = AuthError(.notFound, "passkey_disabled", "Passkeys are not available on this server's pages.")
    static let hostedFormExpired = AuthError(
        .forbidden, "form_expired", "This form has expired or was already used. Request a new link to choose a password or add a passkey.")
    static let hostedPageForged = AuthError(
        .forbidden, "request_forbidden", "This request did not come from this server's page. Reload the page and try again.")
    static let hostedPasskeyNeedsSecondFactor = AuthError(
        .forbidden, "insufficient_aal",
        "This account uses two-step verification: sign in to the app with both steps, and add the passkey there.")
}
