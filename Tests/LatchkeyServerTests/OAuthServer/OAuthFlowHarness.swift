import Foundation
import LatchkeyTesting
import LatchkeyWire
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// A server with the OAuth server on (consent screen at `https://app.example.com/consent`,
/// ES256 tokens unless `asymmetric` is false) and the steps of a client's sign-in.
struct OAuthFlowHarness {
    static let site = "https://app.example.com"
    static let redirect = "https://second.example.com/callback"

    let server: TestServer

    /// A registered client: its id, and its secret when confidential.
    struct Client {
        var id: String
        var secret: String?

        /// `Authorization: Basic …` of a confidential client.
        var basic: [(String, String)] {
            guard let secret else { return [] }
            return [("Authorization", "Basic " + Data("\(id):\(secret)".utf8).base64EncodedString())]
        }
    }

    /// A PKCE verifier and its S256 challenge.
    struct PKCE {
        var verifier = OpaqueTokens.random(byteCount: 40)
        var challenge: String { PKCEChallenge.s256(verifier) }
    }

    static func with(
        asymmetric: Bool = true, clock: ManualServerClock = ManualServerClock(), configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: (OAuthFlowHarness) async throws -> Void
    ) async throws {
        let keys = asymmetric ? try JWTKeySet(json: "[\(try JWTKeySet.generateKey(.es256))]") : nil
        try await TestServer.with(
            clock: clock,
            configure: { configuration in
                configuration.oauthServer.enabled = true
                configuration.oauthServer.authorizationPath = "/consent"
                configuration.siteURL = site
                configuration.jwtKeys = keys
                configure(&configuration)
            }
        ) { server in try await body(OAuthFlowHarness(server: server)) }
    }

    func client(public isPublic: Bool = false, redirects: [String] = [redirect], name: String = "Second App") async throws -> Client {
        var body: [String: any Sendable] = ["redirect_uris": redirects, "client_name": name]
        if isPublic { body["token_endpoint_auth_method"] = "none" }
        let created = try await server.request(.POST, "/admin/oauth/clients", json: body, bearer: server.server.serviceRoleKey)
        guard created.status == 201, let id = created["client_id"] as? String else { throw TestFailure("client not created: \(created.text)") }
        return Client(id: id, secret: created["client_secret"] as? String)
    }

    /// `GET /oauth/authorize` with `parameters` over a valid request's.
    func authorize(_ client: Client, pkce: PKCE = PKCE(), _ parameters: [String: String?] = [:]) async throws -> TestResponse {
        var query: [String: String?] = [
            "client_id": client.id, "redirect_uri": Self.redirect, "response_type": "code", "scope": "openid email profile",
            "state": "st4te", "code_challenge": pkce.challenge, "code_challenge_method": "S256", "nonce": "n0nce",
        ]
        query.merge(parameters) { _, new in new }
        var components = URLComponents()
        components.queryItems = query.compactMap { name, value in value.map { URLQueryItem(name: name, value: $0) } }
        // As OAuth clients write a query: a space is `+`.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
            .replacingOccurrences(of: "%20", with: "+")
        return try await server.request(.GET, "/oauth/authorize?" + (components.percentEncodedQuery ?? ""))
    }

    /// The authorization id of a 302 to the consent screen.
    func authorizationID(_ response: TestResponse) throws -> String {
        let location = try #require(response.headers.first(name: "Location"), "\(response.status) \(response.text)")
        #expect(location.hasPrefix(Self.site + "/consent?authorization_id="), "\(location)")
        return try #require(Self.query(location)["authorization_id"])
    }

    /// The query parameters of `url`.
    static func query(_ url: String) -> [String: String] {
        var values: [String: String] = [:]
        for item in URLComponents(string: url)?.queryItems ?? [] { values[item.name] = item.value ?? "" }
        return values
    }

    /// An approved code of `session`'s user for `client`.
    func code(_ client: Client, for session: TestSession, pkce: PKCE, _ parameters: [String: String?] = [:]) async throws -> String {
        let id = try authorizationID(try await authorize(client, pkce: pkce, parameters))
        let read = try await server.request(.GET, "/oauth/authorizations/\(id)", bearer: session.accessToken)
        if let url = read["redirect_url"] as? String { return try #require(Self.query(url)["code"]) }
        #expect(read.status == 200, "\(read.text)")
        let approved = try await server.request(
            .POST, "/oauth/authorizations/\(id)/consent", json: ["action": "approve"], bearer: session.accessToken)
        let url = try #require(approved["redirect_url"] as? String, "\(approved.status) \(approved.text)")
        return try #require(Self.query(url)["code"])
    }

    /// Enrolls and verifies a TOTP factor for `session`'s user: the account then has two-step verification.
    func verifyTOTPFactor(for session: TestSession) async throws {
        let enrolled = try await server.request(.POST, "/factors", json: ["factor_type": "totp"], bearer: session.accessToken)
        let factorID = try #require(enrolled["id"] as? String, "\(enrolled.text)")
        let secret = try #require((enrolled["totp"] as? [String: Any])?["secret"] as? String)
        let challenge = try await server.request(.POST, "/factors/\(factorID)/challenge", bearer: session.accessToken)
        let verified = try await server.request(
            .POST, "/factors/\(factorID)/verify",
            json: [
                "challenge_id": try #require(challenge["id"] as? String), "code": try TOTPCode.current(secret: secret, at: server.clock.now()),
            ],
            bearer: session.accessToken)
        #expect(verified.status == 200, "\(verified.text)")
    }

    /// `POST /oauth/token` redeeming `code` as `client` (Basic for a confidential one).
    func redeem(_ client: Client, code: String, verifier: String?, extra: [String: String] = [:]) async throws -> TestResponse {
        var form = ["grant_type": "authorization_code", "code": code, "redirect_uri": Self.redirect]
        if let verifier { form["code_verifier"] = verifier }
        if client.secret == nil { form["client_id"] = client.id }
        form.merge(extra) { _, new in new }
        return try await server.request(.POST, "/oauth/token", form: form, headers: client.basic)
    }

    func refresh(_ client: Client, _ token: String) async throws -> TestResponse {
        var form = ["grant_type": "refresh_token", "refresh_token": token]
        if client.secret == nil { form["client_id"] = client.id }
        return try await server.request(.POST, "/oauth/token", form: form, headers: client.basic)
    }

    /// The claims of a JWT, unverified.
    static func claims(_ jwt: String) throws -> [String: Any] {
        let parts = jwt.split(separator: ".")
        try #require(parts.count == 3)
        let payload = try #require(Base64URL.decode(String(parts[1])))
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }

    /// The header of a JWT.
    static func header(_ jwt: String) throws -> [String: Any] {
        let payload = try #require(Base64URL.decode(String(jwt.split(separator: ".")[0])))
        return try #require(try JSONSerialization.jsonObject(with: Data(payload)) as? [String: Any])
    }
}

extension TestResponse {
    /// Expects an error in OAuth's shape (RFC 6749 §5.2): `error`, and `error_description` when given.
    func expectOAuthError(_ status: Int, _ error: String, _ description: String? = nil, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(self.status == status, "\(self.status) \(text)", sourceLocation: sourceLocation)
        #expect(self["error"] as? String == error, "\(text)", sourceLocation: sourceLocation)
        if let description { #expect(self["error_description"] as? String == description, sourceLocation: sourceLocation) }
        #expect(self["error_code"] == nil && self["msg"] == nil, "\(text)", sourceLocation: sourceLocation)
    }
}
