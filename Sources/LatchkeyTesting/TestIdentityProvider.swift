import Crypto
import Foundation
import Hummingbird
import LatchkeyServer
import LatchkeyWire
import Logging
import NIOConcurrencyHelpers
import _CryptoExtras

/// An OpenID Connect provider for tests: serves its discovery document and signing keys on
/// 127.0.0.1 and mints ID tokens, signed with ES256 or RS256, for any person and audience.
///
/// It also runs the browser flow: an authorization page that consents at once as the person
/// ``signInNext(subject:email:emailVerified:name:)`` names (answering with a redirect, or with
/// Apple's `form_post` page), a token endpoint that checks the client, the redirect URI and the
/// PKCE verifier; and GitHub's OAuth and REST endpoints (`/login/oauth/…`, `/api/v3/user`,
/// `/api/v3/user/emails`), so it stands in for a GitHub Enterprise server too.
///
/// Point a server at it as a Keycloak provider, or as a stand-in for Apple or Google (both
/// need `allowLoopbackProviders`):
///
/// ```swift
/// let provider = try await TestIdentityProvider.start()
/// let server = try await TestAuthServer.start { configuration in
///     configuration.external.allowLoopbackProviders = true
///     configuration.external.keycloak = ProviderSettings(enabled: true, clientIDs: ["my-app"], url: provider.issuer)
/// }
/// let token = try provider.idToken(subject: "person-1", audience: "my-app", email: "ada@example.com")
/// ```
public final class TestIdentityProvider: Sendable {
    /// How the provider signs its tokens.
    public enum Algorithm: String, Sendable {
        case es256 = "ES256"
        case rs256 = "RS256"
    }

    /// A signing key with its published form.
    struct Key: Sendable {
        let id: String
        let algorithm: Algorithm
        let sign: @Sendable (Data) throws -> Data
        let publicJWK: [String: String]

        static func make(_ algorithm: Algorithm) throws -> Key {
            let id = UUID().uuidString.lowercased()
            switch algorithm {
            case .es256:
                let key = P256.Signing.PrivateKey()
                let point = key.publicKey.rawRepresentation
                return Key(
                    id: id, algorithm: algorithm, sign: { try key.signature(for: $0).rawRepresentation },
                    publicJWK: [
                        "kty": "EC", "crv": "P-256", "x": Base64URL.encode(point.prefix(32)), "y": Base64URL.encode(point.suffix(32)), "kid": id,
                        "alg": "ES256", "use": "sig",
                    ])
            case .rs256:
                let key = try _RSA.Signing.PrivateKey(keySize: .bits2048)
                let numbers = try key.publicKey.getKeyPrimitives()
                return Key(
                    id: id, algorithm: algorithm, sign: { try key.signature(for: $0, padding: .insecurePKCS1v1_5).rawRepresentation },
                    publicJWK: [
                        "kty": "RSA", "n": Base64URL.encode(numbers.modulus), "e": Base64URL.encode(numbers.publicExponent), "kid": id,
                        "alg": "RS256",
                        "use": "sig",
                    ])
            }
        }
    }

    /// Who signs in at the provider's authorization page (which consents at once, with no
    /// page to fill in): set with ``signInNext(subject:email:emailVerified:name:)``.
    public struct Person: Sendable, Hashable {
        public var subject: String
        public var email: String?
        public var emailVerified: Bool
        public var name: String?

        public init(subject: String, email: String? = nil, emailVerified: Bool = true, name: String? = nil) {
            self.subject = subject
            self.email = email
            self.emailVerified = emailVerified
            self.name = name
        }
    }

    /// The browser flow's state: codes handed out and not yet exchanged, who signs in next,
    /// what clients sent.
    struct Authorizations: Sendable {
        struct Pending: Sendable {
            var clientID: String
            var redirectURI: String
            var nonce: String?
            var codeChallenge: String?
            var person: Person
        }
        var next = Person(subject: "test-person", email: "test-person@example.com")
        var pending: [String: Pending] = [:]
        var clientSecrets: [String] = []
        /// Access tokens handed out, with whom they are for (GitHub's API answers from them).
        var accessTokens: [String: Person] = [:]
        var authorizationRequests: [[String: String]] = []
    }

    /// The issuer URL (`http://127.0.0.1:<port>`), also the `iss` of its tokens.
    public let issuer: String
    private let keys: NIOLockedValueBox<[Key]>
    private let keyFetches: NIOLockedValueBox<Int>
    private let authorizations: NIOLockedValueBox<Authorizations>
    private let server: LoopbackHTTPServer

    private init(
        issuer: String, keys: NIOLockedValueBox<[Key]>, keyFetches: NIOLockedValueBox<Int>, authorizations: NIOLockedValueBox<Authorizations>,
        server: LoopbackHTTPServer
    ) {
        self.issuer = issuer
        self.keys = keys
        self.keyFetches = keyFetches
        self.authorizations = authorizations
        self.server = server
    }

    /// Starts a provider signing with `algorithm`, listening on a free loopback port.
    public static func start(
        algorithm: Algorithm = .es256, logger: Logger = Logger(label: "latchkey.testing.idp")
    ) async throws -> TestIdentityProvider {
        let keys = NIOLockedValueBox([try Key.make(algorithm)])
        let keyFetches = NIOLockedValueBox(0)
        let authorizations = NIOLockedValueBox(Authorizations())
        let issuerBox = NIOLockedValueBox("")
        let router = Router()
        router.get("/.well-known/openid-configuration") { _, _ -> Response in
            let issuer = issuerBox.withLockedValue { $0 }
            return json([
                "issuer": issuer, "jwks_uri": issuer + "/jwks", "authorization_endpoint": issuer + "/authorize",
                "token_endpoint": issuer + "/token", "userinfo_endpoint": issuer + "/userinfo",
                "id_token_signing_alg_values_supported": algorithm.rawValue,
            ])
        }
        // OpenID Connect's authorization and token endpoints, then GitHub's OAuth ones as a GitHub
        // Enterprise server at the issuer URL has them (its REST API follows).
        let oauthEndpoints = [("/authorize", "/token", false), ("/login/oauth/authorize", "/login/oauth/access_token", true)]
        for (authorizePath, tokenPath, gitHub) in oauthEndpoints {
            router.get(RouterPath(authorizePath)) { request, _ -> Response in
                try authorize(request, authorizations: authorizations)
            }
            router.post(RouterPath(tokenPath)) { request, _ -> Response in
                let body = try await request.body.collect(upTo: 64 << 10)
                return try exchange(
                    request, form: formFields(String(buffer: body)), issuer: issuerBox.withLockedValue { $0 }, keys: keys,
                    authorizations: authorizations, gitHub: gitHub)
            }
        }
        // OpenID Connect's user-info endpoint (also what a plain OAuth 2 provider offers).
        router.get("/userinfo") { request, _ -> Response in
            guard let person = gitHubPerson(request, authorizations) else { return Response(status: .unauthorized) }
            var info: [String: Any] = ["sub": person.subject, "email_verified": person.emailVerified]
            if let email = person.email { info["email"] = email }
            if let name = person.name { info["name"] = name }
            return try jsonResponse(info)
        }
        router.get("/api/v3/user") { request, _ -> Response in
            guard let person = gitHubPerson(request, authorizations) else { return Response(status: .unauthorized) }
            var user: [String: Any] = ["id": Int(person.subject) ?? 0, "login": person.subject, "avatar_url": "https://example.com/a.png"]
            if let name = person.name { user["name"] = name }
            return try jsonResponse(user)
        }
        router.get("/api/v3/user/emails") { request, _ -> Response in
            guard let person = gitHubPerson(request, authorizations) else { return Response(status: .unauthorized) }
            guard let email = person.email else { return try jsonResponse([[String: Any]]()) }
            return try jsonResponse([
                ["email": "old-" + email, "primary": false, "verified": true],
                ["email": email, "primary": true, "verified": person.emailVerified],
            ])
        }
        router.get("/jwks") { _, _ -> Response in
            keyFetches.withLockedValue { $0 += 1 }
            let published = keys.withLockedValue { $0.map(\.publicJWK) }
            return Response(
                status: .ok, headers: [.contentType: "application/json"],
                body: .init(byteBuffer: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: ["keys": published]))))
        }
        let server = try await LoopbackHTTPServer.start(router, label: "test identity provider", logger: logger)
        let issuer = server.baseURL
        issuerBox.withLockedValue { $0 = issuer }
        return TestIdentityProvider(issuer: issuer, keys: keys, keyFetches: keyFetches, authorizations: authorizations, server: server)
    }

    /// Makes `person` the one who signs in at the next authorization (the page consents at once).
    /// For GitHub's API, `subject` should be a number (GitHub's user IDs are).
    public func signInNext(subject: String, email: String? = nil, emailVerified: Bool = true, name: String? = nil) {
        authorizations.withLockedValue { $0.next = Person(subject: subject, email: email, emailVerified: emailVerified, name: name) }
    }

    /// The client secrets the token endpoint received, oldest first (to check, say, the
    /// client-secret JWT a server made for Sign in with Apple).
    public var receivedClientSecrets: [String] { authorizations.withLockedValue { $0.clientSecrets } }

    /// The query of each authorization request, oldest first.
    public var authorizationRequests: [[String: String]] { authorizations.withLockedValue { $0.authorizationRequests } }

    /// How often the signing keys were fetched.
    public var keySetFetches: Int { keyFetches.withLockedValue { $0 } }

    /// The `kid` of the key tokens are signed with now.
    public var currentKeyID: String { keys.withLockedValue { $0[0].id } }

    /// Replaces the signing key with a new one (the old one is no longer published).
    public func rotateKey() throws {
        let algorithm = keys.withLockedValue { $0[0].algorithm }
        let key = try Key.make(algorithm)
        keys.withLockedValue { $0 = [key] }
    }

    /// An ID token for `subject`, for the client `audience`, valid for `lifetime` from
    /// `issuedAt`. `nonce` is the raw nonce the app keeps: the token carries its SHA-256 (hex),
    /// as Sign in with Apple and Google do. `claims` adds or replaces claims.
    public func idToken(
        subject: String, audience: String, email: String? = nil, emailVerified: Bool = true, nonce: String? = nil,
        issuedAt: Date = Date(), lifetime: TimeInterval = 3600, claims: [String: any Sendable] = [:]
    ) throws -> String {
        var payload: [String: Any] = [
            "iss": issuer, "sub": subject, "aud": audience, "iat": Int(issuedAt.timeIntervalSince1970),
            "exp": Int(issuedAt.addingTimeInterval(lifetime).timeIntervalSince1970),
        ]
        if let email {
            payload["email"] = email
            payload["email_verified"] = emailVerified
        }
        if let nonce { payload["nonce"] = Self.hashedNonce(nonce) }
        for (name, value) in claims { payload[name] = value }
        return try sign(payload)
    }

    /// `payload` signed with the current key, with `header` members added to (or replacing)
    /// `alg`, `kid` and `typ`: for tests of tokens that must be refused.
    public func sign(_ payload: [String: Any], header: [String: String] = [:]) throws -> String {
        try Self.signed(payload, with: keys.withLockedValue { $0[0] }, header: header)
    }

    /// The nonce an ID token carries for the raw `nonce`: its SHA-256 in lowercase hex.
    public static func hashedNonce(_ nonce: String) -> String {
        OAuthDigest.hashedNonce(nonce)
    }

    /// Stops serving.
    /// Starts a provider, runs `body` with it and shuts it down, also when `body` throws.
    public static func with<Result>(
        algorithm: Algorithm = .es256, _ body: (TestIdentityProvider) async throws -> Result
    ) async throws -> Result {
        try await start(algorithm: algorithm).use(body)
    }

    public func shutdown() async throws {
        try await server.stop()
    }

    // MARK: The authorization-code flow

    /// `GET /authorize`: the person set with ``signInNext(subject:email:emailVerified:name:)``
    /// consents at once. The code goes back to `redirect_uri` in its query, or, with
    /// `response_mode=form_post` (as Apple answers), in a page whose form posts it there (with
    /// Apple's `user` field carrying the name).
    private static func authorize(_ request: Request, authorizations: NIOLockedValueBox<Authorizations>) throws -> Response {
        var query: [String: String] = [:]
        for (name, value) in request.uri.queryParameters { query[String(name)] = String(value) }
        guard query["response_type"] == "code", let clientID = query["client_id"], let redirectURI = query["redirect_uri"],
            let state = query["state"]
        else { return Response(status: .badRequest) }
        if let method = query["code_challenge_method"], method != "S256" { return Response(status: .badRequest) }
        let code = UUID().uuidString
        let person = authorizations.withLockedValue { box in
            box.authorizationRequests.append(query)
            box.pending[code] = .init(
                clientID: clientID, redirectURI: redirectURI, nonce: query["nonce"], codeChallenge: query["code_challenge"], person: box.next)
            return box.next
        }
        guard query["response_mode"] == "form_post" else {
            var components = URLComponents(string: redirectURI)
            let existing = components?.queryItems ?? []
            components?.queryItems = existing + [URLQueryItem(name: "code", value: code), URLQueryItem(name: "state", value: state)]
            return Response(status: .found, headers: [.location: components?.string ?? redirectURI])
        }
        var fields = ["code": code, "state": state]
        if let name = person.name {
            let parts = name.split(separator: " ", maxSplits: 1).map(String.init)
            let user: [String: Any] = [
                "name": ["firstName": parts.first ?? "", "lastName": parts.count > 1 ? parts[1] : ""], "email": person.email ?? "",
            ]
            fields["user"] = String(decoding: try JSONSerialization.data(withJSONObject: user, options: [.sortedKeys]), as: UTF8.self)
        }
        let inputs = fields.sorted { $0.key < $1.key }.map { "<input type=\"hidden\" name=\"\(escape($0.key))\" value=\"\(escape($0.value))\">" }
        let page = "<!doctype html><form method=\"post\" action=\"\(escape(redirectURI))\">\(inputs.joined())</form>"
        return Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"], body: .init(byteBuffer: ByteBuffer(string: page)))
    }

    /// `POST /token`: a code for its client and redirect URI, once, with the verifier of its
    /// challenge; answers an access token and an ID token carrying the nonce as sent.
    private static func exchange(
        _ request: Request, form: [String: String], issuer: String, keys: NIOLockedValueBox<[Key]>,
        authorizations: NIOLockedValueBox<Authorizations>, gitHub: Bool
    ) throws -> Response {
        func refuse(_ error: String) -> Response {
            let data = (try? JSONSerialization.data(withJSONObject: ["error": error])) ?? Data()
            return Response(status: .badRequest, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
        }
        var clientID = form["client_id"]
        var secret = form["client_secret"]
        if let basic = request.headers[.authorization], basic.hasPrefix("Basic "),
            let decoded = Data(base64Encoded: String(basic.dropFirst(6))).map({ String(decoding: $0, as: UTF8.self) }),
            let colon = decoded.firstIndex(of: ":")
        {
            clientID = String(decoded[..<colon]).removingPercentEncoding
            secret = String(decoded[decoded.index(after: colon)...]).removingPercentEncoding
        }
        guard form["grant_type"] == "authorization_code", let code = form["code"] else { return refuse("unsupported_grant_type") }
        guard let secret, !secret.isEmpty else { return refuse("invalid_client") }
        guard
            let pending = authorizations.withLockedValue({ box -> Authorizations.Pending? in
                box.clientSecrets.append(secret)
                return box.pending.removeValue(forKey: code)
            })
        else { return refuse("invalid_grant") }
        guard pending.clientID == clientID, pending.redirectURI == form["redirect_uri"] else { return refuse("invalid_grant") }
        if let challenge = pending.codeChallenge {
            guard let verifier = form["code_verifier"], OAuthDigest.pkceChallenge(for: verifier) == challenge else {
                return refuse("invalid_grant")
            }
        }
        let accessToken = UUID().uuidString
        authorizations.withLockedValue { $0.accessTokens[accessToken] = pending.person }
        if gitHub {
            // GitHub answers 200 with an access token and no ID token.
            return try jsonResponse(["access_token": accessToken, "token_type": "bearer", "scope": "user:email"])
        }
        let now = Int(Date().timeIntervalSince1970)
        var claims: [String: Any] = [
            "iss": issuer, "sub": pending.person.subject, "aud": pending.clientID, "iat": now, "exp": now + 600,
            "at_hash": OAuthDigest.accessTokenHash(accessToken),
        ]
        if let email = pending.person.email {
            claims["email"] = email
            claims["email_verified"] = pending.person.emailVerified
        }
        if let name = pending.person.name { claims["name"] = name }
        if let nonce = pending.nonce { claims["nonce"] = nonce }
        let idToken = try signed(claims, with: keys.withLockedValue { $0[0] })
        let answer: [String: Any] = [
            "access_token": accessToken, "token_type": "Bearer", "expires_in": 600, "id_token": idToken, "refresh_token": UUID().uuidString,
        ]
        let data = try JSONSerialization.data(withJSONObject: answer)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// The person an access token the token endpoint handed out is for.
    private static func gitHubPerson(_ request: Request, _ authorizations: NIOLockedValueBox<Authorizations>) -> Person? {
        guard let header = request.headers[.authorization], header.hasPrefix("Bearer ") else { return nil }
        let token = String(header.dropFirst(7))
        return authorizations.withLockedValue { $0.accessTokens[token] }
    }

    private static func jsonResponse(_ object: Any) throws -> Response {
        let data = try JSONSerialization.data(withJSONObject: object)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `payload` signed with `key`, with `extra` members added to (or replacing) the header's.
    private static func signed(_ payload: [String: Any], with key: Key, header extra: [String: String] = [:]) throws -> String {
        var header = ["alg": key.algorithm.rawValue, "kid": key.id, "typ": "JWT"]
        for (name, value) in extra { header[name] = value }
        let signingInput =
            Base64URL.encode(try JSONSerialization.data(withJSONObject: header, options: [.sortedKeys])) + "."
            + Base64URL.encode(try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]))
        return signingInput + "." + Base64URL.encode(try key.sign(Data(signingInput.utf8)))
    }

    private static func formFields(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? ""
            }
            if let name = parts.first, fields[name] == nil { fields[name] = parts.count > 1 ? parts[1] : "" }
        }
        return fields
    }

    private static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "\"", with: "&quot;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    private static func json(_ object: [String: String]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
