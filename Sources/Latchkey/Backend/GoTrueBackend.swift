import Foundation
// Public: the metadata parameters are JSONValue (Exports.swift). No wire body is part of the API.
public import LatchkeyWire

/// An ``AuthBackend`` speaking GoTrue's wire protocol: the Latchkey server, or a Supabase project
/// (pass its `…/auth/v1` URL and anon key).
public struct GoTrueBackend: AuthBackend {
    /// Where and how to reach the server.
    public struct Configuration: Sendable {
        /// The auth root, e.g. `http://127.0.0.1:9999` or `https://<ref>.supabase.co/auth/v1`.
        public var baseURL: URL
        /// The project's anon (publishable) key, sent as `apikey`; required by Supabase.
        public var apiKey: String?
        /// Per-request timeout in seconds. Default 15.
        public var requestTimeout: TimeInterval
        /// Extra headers on every request.
        public var additionalHeaders: [String: String]

        public init(baseURL: URL, apiKey: String? = nil, requestTimeout: TimeInterval = 15, additionalHeaders: [String: String] = [:]) {
            self.baseURL = baseURL
            self.apiKey = apiKey
            self.requestTimeout = requestTimeout
            self.additionalHeaders = additionalHeaders
        }
    }

    public let configuration: Configuration
    private let transport: any HTTPTransport

    public init(configuration: Configuration, transport: any HTTPTransport = URLSessionTransport()) {
        self.configuration = configuration
        self.transport = transport
    }

    public func signUp(email: String, password: String, data: [String: JSONValue]) async throws -> SignUpResult {
        let body = try await send("POST", "signup", body: SignUpBody(email: email, password: password, data: data))
        // A session when the server confirms at once, otherwise the (unconfirmed) user.
        if let session = try? JSONDecoder().decode(SessionResponse.self, from: body) {
            return .signedIn(Session(wire: session))
        }
        return .confirmationRequired(User(wire: try decode(UserResponse.self, from: body)))
    }

    public func signIn(email: String, password: String) async throws -> Session {
        let body = try await send(
            "POST", "token", query: [("grant_type", "password")],
            body: PasswordGrantBody(email: email, password: password))
        return Session(wire: try decode(SessionResponse.self, from: body))
    }

    public func refresh(refreshToken: String) async throws -> Session {
        let body = try await send(
            "POST", "token", query: [("grant_type", "refresh_token")],
            body: RefreshGrantBody(refresh_token: refreshToken))
        return Session(wire: try decode(SessionResponse.self, from: body))
    }

    public func signOut(accessToken: String, scope: SignOutScope) async throws {
        _ = try await send("POST", "logout", query: [("scope", scope.rawValue)], accessToken: accessToken)
    }

    public func user(accessToken: String) async throws -> User {
        User(wire: try decode(UserResponse.self, from: try await send("GET", "user", accessToken: accessToken)))
    }

    public func updateUser(accessToken: String, _ update: UserUpdate) async throws -> User {
        let body = UpdateUserBody(email: update.email, password: update.password, data: update.data, nonce: update.nonce)
        return User(wire: try decode(UserResponse.self, from: try await send("PUT", "user", body: body, accessToken: accessToken)))
    }

    public func resendConfirmation(email: String) async throws {
        _ = try await send("POST", "resend", body: EmailBody(email: email, type: "signup"))
    }

    public func recoverPassword(email: String) async throws {
        _ = try await send("POST", "recover", body: EmailBody(email: email))
    }

    public func verify(type: VerificationType, email: String, token: String) async throws -> Session {
        let body = try await send("POST", "verify", body: VerifyBody(type: type.rawValue, token: token, email: email))
        return Session(wire: try decode(SessionResponse.self, from: body))
    }

    public func verifyEmailChange(email: String, token: String) async throws -> Session? {
        let body = try await send("POST", "verify", body: VerifyBody(type: VerificationType.emailChange.rawValue, token: token, email: email))
        // GoTrue's answer to the first of two confirmations: {"msg": …, "code": "200"}, no session.
        struct Accepted: Decodable { var code: String }
        if (try? Self.decoder.decode(Accepted.self, from: body))?.code == "200" { return nil }
        return Session(wire: try decode(SessionResponse.self, from: body))
    }

    public func sendSignInEmail(email: String, createUser: Bool, redirectTo: String?, codeChallenge: String?) async throws {
        _ = try await send(
            "POST", "otp", query: redirectTo.map { [("redirect_to", $0)] } ?? [],
            body: OTPBody(
                email: email, create_user: createUser, code_challenge: codeChallenge, code_challenge_method: codeChallenge.map { _ in "s256" }))
    }

    public func sendSignInSMS(phone: String, createUser: Bool, channel: PhoneChannel) async throws {
        _ = try await send("POST", "otp", body: OTPBody(phone: phone, create_user: createUser, channel: channel.rawValue))
    }

    public func verifyPhone(phone: String, token: String) async throws -> Session {
        let body = try await send("POST", "verify", body: VerifyBody(type: "sms", token: token, phone: phone))
        return Session(wire: try decode(SessionResponse.self, from: body))
    }

    public func recoverPassword(email: String, redirectTo: String?, codeChallenge: String?) async throws {
        _ = try await send(
            "POST", "recover", query: redirectTo.map { [("redirect_to", $0)] } ?? [],
            body: EmailBody(email: email, code_challenge: codeChallenge, code_challenge_method: codeChallenge.map { _ in "s256" }))
    }

    public func exchangeCode(_ authCode: String, codeVerifier: String) async throws -> Session {
        let body = try await send(
            "POST", "token", query: [("grant_type", "pkce")],
            body: PKCEGrantBody(auth_code: authCode, code_verifier: codeVerifier))
        return Session(wire: try decode(SessionResponse.self, from: body))
    }

    public func signInAnonymously(data: [String: JSONValue]) async throws -> Session {
        let body = try await send("POST", "signup", body: SignUpBody(data: data))
        return Session(wire: try decode(SessionResponse.self, from: body))
    }

    public func reauthenticate(accessToken: String) async throws {
        _ = try await send("GET", "reauthenticate", accessToken: accessToken)
    }

    public func deleteUser(accessToken: String, nonce: String?) async throws {
        _ = try await send("DELETE", "user", body: DeleteUserBody(nonce: nonce), accessToken: accessToken)
    }

    public func enrollTOTPFactor(accessToken: String, friendlyName: String?, issuer: String?) async throws -> TOTPEnrollment {
        let body = try await send(
            "POST", "factors", body: EnrollFactorBody(factor_type: "totp", friendly_name: friendlyName, issuer: issuer),
            accessToken: accessToken)
        let response = try decode(EnrollFactorResponse.self, from: body)
        guard let totp = response.totp, !totp.secret.isEmpty, !totp.uri.isEmpty else {
            throw BackendError.invalidResponse(reason: "the enrollment carries no TOTP secret")
        }
        return TOTPEnrollment(
            factorID: response.id, friendlyName: response.friendly_name.isEmpty ? nil : response.friendly_name,
            secret: totp.secret, uri: totp.uri, qrCodeSVG: totp.qr_code)
    }

    public func enrollPhoneFactor(accessToken: String, phone: String, friendlyName: String?) async throws -> Factor {
        let body = try await send(
            "POST", "factors", body: EnrollFactorBody(factor_type: "phone", friendly_name: friendlyName, phone: phone), accessToken: accessToken)
        let response = try decode(EnrollFactorResponse.self, from: body)
        guard response.type == "phone" else { throw BackendError.invalidResponse(reason: "the enrollment is not a phone factor") }
        return Factor(
            id: response.id, friendlyName: response.friendly_name.isEmpty ? nil : response.friendly_name, factorType: response.type,
            status: .unverified, phone: response.phone.flatMap { $0.isEmpty ? nil : $0 })
    }

    public func challengeFactor(accessToken: String, factorID: String) async throws -> FactorChallenge {
        try await challengeFactor(accessToken: accessToken, factorID: factorID, body: ChallengeFactorBody())
    }

    public func challengePhoneFactor(accessToken: String, factorID: String, channel: PhoneChannel) async throws -> FactorChallenge {
        try await challengeFactor(accessToken: accessToken, factorID: factorID, body: ChallengeFactorBody(channel: channel.rawValue))
    }

    /// `POST /factors/{id}/challenge` with `body`; a WebAuthn factor's answer carries its ceremony.
    private func challengeFactor(accessToken: String, factorID: String, body request: ChallengeFactorBody) async throws -> FactorChallenge {
        let body = try await send(
            "POST", "factors/\(try Self.pathSegment(factorID))/challenge", body: request, accessToken: accessToken)
        let response = try decode(ChallengeFactorResponse.self, from: body)
        let ceremony: FactorCeremony? =
            switch response.webauthn?.options {
            case .create(let options)?: .create(try PasskeyCreationOptions(wire: options))
            case .request(let options)?: .request(try PasskeyRequestOptions(wire: options))
            case nil: nil
            }
        return FactorChallenge(
            id: response.id, factorID: factorID, expiresAt: Date(timeIntervalSince1970: TimeInterval(response.expires_at)), ceremony: ceremony)
    }

    public func verifyFactor(accessToken: String, factorID: String, challengeID: String, code: String) async throws -> Session {
        let body = try await send(
            "POST", "factors/\(try Self.pathSegment(factorID))/verify",
            body: VerifyFactorBody(challenge_id: challengeID, code: code), accessToken: accessToken)
        return Session(wire: try decode(SessionResponse.self, from: body))
    }

    public func unenrollFactor(accessToken: String, factorID: String) async throws {
        _ = try await send("DELETE", "factors/\(try Self.pathSegment(factorID))", accessToken: accessToken)
    }

    public func signInWithIDToken(
        provider: String, idToken: String, nonce: String?, accessToken: String?, linkingTo userAccessToken: String?
    ) async throws -> Session {
        try await signInWithIDToken(
            provider: provider, idToken: idToken, nonce: nonce, accessToken: accessToken, appleAuthorizationCode: nil, linkingTo: userAccessToken)
    }

    public func signInWithIDToken(
        provider: String, idToken: String, nonce: String?, accessToken: String?, appleAuthorizationCode: String?,
        linkingTo userAccessToken: String?
    ) async throws -> Session {
        let body = try await send(
            "POST", "token", query: [("grant_type", "id_token")],
            body: IDTokenGrantBody(
                provider: provider, id_token: idToken, nonce: nonce, access_token: accessToken,
                link_identity: userAccessToken == nil ? nil : true, apple_authorization_code: appleAuthorizationCode),
            accessToken: userAccessToken)
        return Session(wire: try decode(SessionResponse.self, from: body))
    }

    public func authorizeURL(provider: String, redirectTo: String, scopes: String?, codeChallenge: String) throws -> URL {
        try url("authorize", query: Self.authorizeQuery(provider: provider, redirectTo: redirectTo, scopes: scopes, codeChallenge: codeChallenge))
    }

    public func linkIdentityURL(accessToken: String, provider: String, redirectTo: String, scopes: String?, codeChallenge: String) async throws -> URL
    {
        let query = Self.authorizeQuery(provider: provider, redirectTo: redirectTo, scopes: scopes, codeChallenge: codeChallenge)
        let body = try await send("GET", "user/identities/authorize", query: query + [("skip_http_redirect", "true")], accessToken: accessToken)
        guard let answer = URL(string: try decode(AuthorizeURLAnswer.self, from: body).url), answer.scheme != nil else {
            throw BackendError.invalidResponse(reason: "the link answer carries no URL")
        }
        return answer
    }

    public func unlinkIdentity(accessToken: String, identityID: String) async throws {
        _ = try await send("DELETE", "user/identities/\(try Self.pathSegment(identityID, notFound: "identity_not_found"))", accessToken: accessToken)
    }

    /// GoTrue's `/authorize` parameters, in the order supabase clients send them.
    static func authorizeQuery(provider: String, redirectTo: String, scopes: String?, codeChallenge: String) -> [(String, String)] {
        var query = [("provider", provider), ("redirect_to", redirectTo)]
        if let scopes, !scopes.isEmpty { query.append(("scopes", scopes)) }
        query += [("code_challenge", codeChallenge), ("code_challenge_method", "s256")]
        return query
    }

    /// `GET /user/identities/authorize?skip_http_redirect=true`'s answer.
    private struct AuthorizeURLAnswer: Decodable {
        var url: String
    }

    /// What the server says about itself (`GET /settings`), for a sign-up form to know the
    /// rules before anyone types.
    /// - Throws: ``BackendError``.
    public func settings() async throws -> GoTrueServerSettings {
        GoTrueServerSettings(wire: try decode(SettingsResponse.self, from: try await send("GET", "settings")))
    }

    // MARK: - Plumbing

    /// `id` as one path segment: an identifier with `/`, `?`, `#` or `%` (or empty) is refused
    /// rather than sent somewhere else.
    static func pathSegment(_ id: String, notFound: String = "mfa_factor_not_found") throws -> String {
        guard !id.isEmpty, id != ".", id != "..", id.rangeOfCharacter(from: CharacterSet(charactersIn: "/?#%\\ ")) == nil,
            id.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        else {
            throw BackendError.server(status: 404, code: notFound, message: "not an identifier", retryAfter: nil)
        }
        return id
    }

    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .goTrue
        return decoder
    }()

    func decode<T: Decodable>(_ type: T.Type, from body: Data) throws -> T {
        do {
            return try Self.decoder.decode(type, from: body)
        } catch {
            throw BackendError.invalidResponse(reason: "cannot decode \(T.self)")
        }
    }

    /// `path` under the base URL with `query`, every value percent-encoded (a `+` too, which
    /// servers would otherwise read as a space).
    private func url(_ path: String, query: [(String, String)] = []) throws -> URL {
        guard var components = URLComponents(url: configuration.baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)
        else { throw BackendError.invalidResponse(reason: "the base URL is not a URL") }
        if !query.isEmpty {
            components.percentEncodedQuery = query.map { "\(Self.encodeQueryValue($0.0))=\(Self.encodeQueryValue($0.1))" }.joined(separator: "&")
        }
        guard let url = components.url else { throw BackendError.invalidResponse(reason: "cannot build the URL") }
        return url
    }

    private static let queryValueCharacters = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))

    static func encodeQueryValue(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: queryValueCharacters) ?? value
    }

    func send(
        _ method: String, _ path: String, query: [(String, String)] = [],
        body: (any Encodable & Sendable)? = nil, accessToken: String? = nil
    ) async throws -> Data {
        var components = URLComponents(
            url: configuration.baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)!
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        var headers = configuration.additionalHeaders
        headers["Accept"] = "application/json"
        headers["X-Client-Info"] = "latchkey-swift/1"
        if let apiKey = configuration.apiKey {
            headers["apikey"] = apiKey
        }
        if let bearer = accessToken ?? configuration.apiKey {
            headers["Authorization"] = "Bearer \(bearer)"
        }
        var data: Data?
        if let body {
            headers["Content-Type"] = "application/json"
            if let captchaToken = CaptchaToken.current {
                data = try JSONEncoder().encode(CaptchaProtectedBody(body: body, captchaToken: captchaToken))
            } else {
                data = try JSONEncoder().encode(body)
            }
        }
        let request = HTTPRequest(
            method: method, url: components.url!, headers: headers, body: data,
            timeout: configuration.requestTimeout)
        let response = try await transport.send(request)
        guard (200..<300).contains(response.status) else {
            throw Self.error(from: response)
        }
        return response.body
    }

    /// GoTrue's error shapes: `{code, error_code, msg}` (current), `{error, error_description}`
    /// (OAuth endpoints on older servers), `{message}` (gateways), plus `x-sb-error-code`.
    static func error(from response: HTTPResponse) -> BackendError {
        let body = try? JSONDecoder().decode(ErrorResponse.self, from: response.body)
        let code = body?.error_code ?? response.headers["x-sb-error-code"] ?? body?.errorCode
        let retryAfter = response.headers["retry-after"].flatMap { TimeInterval($0.trimmingCharacters(in: .whitespaces)) }
        return .server(status: response.status, code: code, message: body?.text, retryAfter: retryAfter)
    }
}

/// What a GoTrue server publishes about itself at `GET /settings`.
public struct GoTrueServerSettings: Sendable, Hashable {
    /// The fewest characters a password may have (`password_min_length`). The Latchkey server
    /// publishes it; upstream GoTrue and Supabase do not (`nil`).
    public var passwordMinimumLength: Int?
    /// Whether new accounts are refused (`disable_signup`).
    public var signUpDisabled: Bool
    /// Whether new accounts are confirmed at once, without an email (`mailer_autoconfirm`).
    public var autoconfirm: Bool
    /// The sign-in providers that are on (`external`), in name order: `apple`, `google`… The
    /// entries of `external` that are not providers (`email`, `phone`, `anonymous_users`) are
    /// left out.
    public var providers: [IdentityProvider]
    /// Whether the server signs in with passkeys (`passkeys_enabled`): show "Sign in with a
    /// passkey" only then. `false` when the server does not say (older servers).
    public var passkeysEnabled: Bool

    /// Settings with these values.
    public init(
        passwordMinimumLength: Int? = nil, signUpDisabled: Bool = false, autoconfirm: Bool = false, providers: [IdentityProvider] = [],
        passkeysEnabled: Bool = false
    ) {
        self.passwordMinimumLength = passwordMinimumLength
        self.signUpDisabled = signUpDisabled
        self.autoconfirm = autoconfirm
        self.providers = providers
        self.passkeysEnabled = passkeysEnabled
    }

    /// The settings a `GET /settings` answer describes.
    package init(wire: SettingsResponse) {
        let notProviders: Set<String> = ["email", "phone", "anonymous_users", "saml"]
        self.init(
            passwordMinimumLength: wire.password_min_length, signUpDisabled: wire.disable_signup ?? false,
            autoconfirm: wire.mailer_autoconfirm ?? false,
            providers: (wire.external ?? [:]).filter { $0.value && !notProviders.contains($0.key) }.keys.sorted().map { IdentityProvider($0) },
            passkeysEnabled: wire.passkeys_enabled ?? false)
    }
}
