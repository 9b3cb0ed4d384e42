import Foundation
import Logging

/// The browser half of the OAuth server's sign-in, as GoTrue runs it: another app's request at
/// `GET /oauth/authorize`, the signed-in user's reading of it on the consent screen, and the
/// user's approval or refusal.
///
/// Until the client and the redirect URI are known to belong together, a bad request is
/// answered here (400) and never sent anywhere; after, it goes back to the client's redirect
/// URI with an OAuth `error`. The redirect URI must equal a registered one character for
/// character (no prefix, case, port or trailing-slash leniency), and every request carries an
/// S256 PKCE challenge: `plain` is refused, so a code stolen on its way back is useless without
/// the verifier that never left the client.
struct OAuthAuthorizations: Sendable {
    let store: any AuthStore
    let clock: any ServerClock
    let settings: OAuthServerSettings
    /// Where the consent screen is (the site URL), and which pages may call the consent routes.
    let redirects: RedirectPolicy
    /// Whether ID tokens can be signed (``TokenSigner/signsAsymmetrically``): `openid` is refused otherwise.
    let signsIDTokens: Bool
    /// The server's own URL, where the hosted consent page is when the app has none.
    let origin: ServerOrigin
    let logger: Logger

    /// `GET /oauth/authorize`'s query.
    struct Request: Sendable {
        var clientID: String?
        var redirectURI: String?
        var responseType: String?
        var scope: String?
        var state: String?
        var resource: String?
        var codeChallenge: String?
        var codeChallengeMethod: String?
        var nonce: String?
    }

    /// What the consent screen learns by reading an authorization.
    enum Reading: Sendable {
        /// The user consented to these scopes before: the authorization is approved, and the
        /// browser goes back to the client with the code.
        case approved(redirectURL: String)
        /// The user is to be asked.
        case details(OAuthAuthorizationDetails)
    }

    /// Where `/oauth/authorize` sends the browser: the consent screen with the new
    /// authorization's id, or the client's redirect URI with an OAuth error.
    func authorize(_ request: Request) async throws -> String {
        guard let clientText = nonEmpty(request.clientID) else { throw AuthError.validation("client_id is required") }
        guard let redirectURI = nonEmpty(request.redirectURI) else { throw AuthError.validation("redirect_uri is required") }
        guard let clientID = UUID(uuidString: clientText) else { throw AuthError.authorizeClientIDMalformed }
        guard let client = try await store.oauthClient(id: clientID) else { throw AuthError.authorizeClientUnknown }
        guard client.redirectURIs.contains(redirectURI) else { throw AuthError.authorizeRedirectUnregistered }

        // The redirect URI is the client's own: from here on, a refusal goes back to it.
        let state = nonEmpty(request.state)
        func refuse(_ error: String, _ description: String) -> String {
            Self.redirect(to: redirectURI, ["error": error, "error_description": description, "state": state])
        }
        let responseType = nonEmpty(request.responseType) ?? "code"
        guard responseType == "code" else { return refuse("invalid_request", "only response_type=code is supported") }
        let scope = nonEmpty(request.scope) ?? settings.defaultScope
        let scopes = OAuthScope.parse(scope)
        guard !scopes.isEmpty else { return refuse("invalid_request", "scope parameter cannot be empty") }
        if let unsupported = scopes.first(where: { !OAuthScope.supported.contains($0) }) {
            return refuse("invalid_request", "unsupported scope: \(unsupported)")
        }
        if scopes.contains("openid"), !signsIDTokens {
            return refuse("invalid_scope", "openid needs ID tokens, and this server signs with HS256: configure ES256 or RS256 JWT keys")
        }
        let resource = nonEmpty(request.resource)
        if let resource, let problem = Self.resourceProblem(resource) { return refuse("invalid_request", problem) }
        guard let challenge = nonEmpty(request.codeChallenge), let method = nonEmpty(request.codeChallengeMethod) else {
            return refuse("invalid_request", "PKCE flow requires both code_challenge and code_challenge_method")
        }
        guard method.lowercased() == "s256" else { return refuse("invalid_request", "code_challenge_method must be 'S256'") }
        guard (43...128).contains(challenge.utf8.count), challenge.utf8.allSatisfy(Self.isBase64URL) else {
            return refuse("invalid_request", "code_challenge must be between 43 and 128 characters of base64url")
        }
        if (state?.utf8.count ?? 0) > 4096 { return refuse("invalid_request", "state must be at most 4096 bytes") }
        let nonce = nonEmpty(request.nonce)
        if (nonce?.utf8.count ?? 0) > 255 { return refuse("invalid_request", "nonce must be at most 255 bytes") }
        let path = settings.authorizationPath.trimmingCharacters(in: .whitespaces)

        let now = clock.now()
        let authorization = OAuthAuthorizationRecord(
            id: Self.authorizationID(), clientID: client.id, redirectURI: redirectURI, scope: scope, state: state, resource: resource,
            codeChallenge: challenge, nonce: nonce, createdAt: now, expiresAt: now.addingTimeInterval(settings.authorizationTTL))
        do {
            try await store.insertOAuthAuthorization(authorization)
        } catch {
            logger.error("OAuth authorization not stored", metadata: ["error": "\(error)"])
            return refuse("server_error", "error creating authorization")
        }
        guard !path.isEmpty else { return origin.url + HostedConsent.path + "?authorization_id=" + authorization.id }
        let site = redirects.siteURL.trimmingTrailingSlash()
        return site + (path.hasPrefix("/") ? path : "/" + path) + "?authorization_id=" + authorization.id
    }

    /// `GET /oauth/authorizations/{id}` by the signed-in `user`: binds the authorization to the
    /// first user who reads it (anyone else is told it does not exist), and approves it at once
    /// when that user's standing consent to the client covers every requested scope.
    func read(_ id: String, by user: UserRecord, origin: String?) async throws -> Reading {
        try checkOrigin(origin)
        var (authorization, client) = try await pending(id, refusal: .authorizationNotPending)
        if let owner = authorization.userID, owner != user.id { throw AuthError.authorizationNotFound }
        if authorization.userID == nil {
            let consent = try await store.oauthConsent(userID: user.id, clientID: client.id)
            var bound = authorization
            bound.userID = user.id
            if let consent, consent.covers(OAuthScope.parse(authorization.scope)) {
                return .approved(redirectURL: try await approve(bound, from: authorization, saving: nil))
            }
            guard try await store.updateOAuthAuthorization(bound, from: authorization) else {
                // Another read came first: it is ours only if it was this user's.
                guard let current = try await store.oauthAuthorization(id: id), current.userID == user.id, current.status == .pending else {
                    throw AuthError.authorizationNotFound
                }
                return .details(OAuthAuthorizationDetails(current, client: client, user: user))
            }
            authorization = bound
        }
        return .details(OAuthAuthorizationDetails(authorization, client: client, user: user))
    }

    /// `POST /oauth/authorizations/{id}/consent` by the user the authorization is bound to:
    /// where the browser goes next, with the code (approved: the consent is remembered) or
    /// with `error=access_denied`.
    func decide(_ id: String, approve approved: Bool, by user: UserRecord, origin: String?) async throws -> String {
        try checkOrigin(origin)
        let (authorization, _) = try await pending(id, refusal: .authorizationNoLongerPending)
        guard authorization.userID == user.id else { throw AuthError.authorizationNotFound }
        if approved {
            let consent = OAuthConsentRecord(
                userID: user.id, clientID: authorization.clientID, scopes: OAuthScope.parse(authorization.scope), grantedAt: clock.now())
            return try await approve(authorization, from: authorization, saving: consent)
        }
        return try await refuse(authorization)
    }

    // MARK: Steps

    /// The hosted consent page's refusal, by a user who did not sign in: where the browser goes
    /// next, with `error=access_denied`. Only an authorization no user has read is denied so.
    func deny(_ id: String) async throws -> String {
        let (authorization, _) = try await pending(id, refusal: .authorizationNoLongerPending)
        guard authorization.userID == nil else { throw AuthError.authorizationNotFound }
        return try await refuse(authorization)
    }

    /// Denies `authorization`: the client's redirect URI with `error=access_denied`.
    private func refuse(_ authorization: OAuthAuthorizationRecord) async throws -> String {
        var denied = authorization
        denied.status = .denied
        guard try await store.updateOAuthAuthorization(denied, from: authorization) else { throw AuthError.authorizationNoLongerPending }
        return Self.redirect(
            to: authorization.redirectURI,
            ["error": "access_denied", "error_description": "User denied the request", "state": authorization.state])
    }

    /// The pending authorization `id` and its client. An expired one is marked so and, like
    /// one that does not exist or whose client was deleted, answers 404; any other status
    /// answers `refusal`.
    func pending(_ id: String, refusal: AuthError) async throws -> (OAuthAuthorizationRecord, OAuthClientRecord) {
        guard let authorization = try await store.oauthAuthorization(id: id) else { throw AuthError.authorizationNotFound }
        if authorization.status == .pending, clock.now() > authorization.expiresAt {
            var expired = authorization
            expired.status = .expired
            _ = try await store.updateOAuthAuthorization(expired, from: authorization)
            throw AuthError.authorizationNotFound
        }
        guard authorization.status == .pending else { throw refusal }
        guard let client = try await store.oauthClient(id: authorization.clientID) else { throw AuthError.authorizationNotFound }
        return (authorization, client)
    }

    /// Approves `authorization` (stored as `previous`), saving `consent` when the user just
    /// gave it: the client's redirect URI with the new code and the request's state.
    private func approve(
        _ authorization: OAuthAuthorizationRecord, from previous: OAuthAuthorizationRecord, saving consent: OAuthConsentRecord?
    ) async throws -> String {
        let code = OpaqueTokens.random()
        var approved = authorization
        approved.status = .approved
        approved.codeHash = OpaqueTokens.hash(code)
        approved.approvedAt = clock.now()
        guard try await store.updateOAuthAuthorization(approved, from: previous) else { throw AuthError.authorizationNoLongerPending }
        if let consent { try await store.saveOAuthConsent(consent) }
        return Self.redirect(to: authorization.redirectURI, ["code": code, "state": authorization.state])
    }

    /// The consent routes answer only pages of the site URL or an allowed URL (a request
    /// without `Origin` is not a browser's cross-site call).
    private func checkOrigin(_ origin: String?) throws(AuthError) {
        guard let origin, !origin.isEmpty else { return }
        guard let url = URL(string: origin), url.scheme != nil, url.host != nil else { throw .consentOriginRefused }
        let resolved = redirects.resolve(origin)
        guard resolved == url.absoluteString || origin == redirects.siteURL else { throw .consentOriginRefused }
    }

    // MARK: Helpers

    private func nonEmpty(_ text: String?) -> String? {
        guard let text, !text.isEmpty else { return nil }
        return text
    }

    /// `url` with `parameters` (those with a value) added to its query, in name order.
    static func redirect(to url: String, _ parameters: [String: String?]) -> String {
        let items = parameters.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }.sorted { $0.name < $1.name }
        return ErrorRedirect.adding(query: items, to: url)
    }

    /// What is wrong with a resource indicator (RFC 8707 §2), if anything.
    static func resourceProblem(_ resource: String) -> String? {
        guard let components = URLComponents(string: resource) else { return "resource must be a valid URI" }
        guard components.scheme != nil else { return "resource must be an absolute URI" }
        if components.fragment != nil { return "resource must not include a fragment component" }
        if components.query != nil { return "resource must not include a query component" }
        return nil
    }

    /// A new `authorization_id`: 32 random characters of `[a-z2-7]`.
    static func authorizationID() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567")
        var generator = SystemRandomNumberGenerator()
        return String((0..<32).map { _ in alphabet[Int(UInt8.random(in: .min ... .max, using: &generator) & 31)] })
    }

    private static func isBase64URL(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): true
        case UInt8(ascii: "-"), UInt8(ascii: "_"): true
        default: false
        }
    }
}
