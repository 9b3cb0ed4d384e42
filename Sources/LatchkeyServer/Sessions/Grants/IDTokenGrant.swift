import Foundation
import Hummingbird
import LatchkeyWire

/// `POST /token?grant_type=id_token`: signs in with an ID token from Apple, Google, Keycloak
/// or an allowed issuer, as GoTrue's `IdTokenGrant`.
///
/// The token is verified against the provider's published keys (see ``IDTokenVerifier``); the
/// person then signs in to their account, one their verified address links to, or a new one
/// (``ProviderSignInPlan``). With `link_identity` and a signed-in user's bearer token, the
/// identity is linked to that user instead.
///
/// With provider `apple`, an app may also send `apple_authorization_code` (a Latchkey
/// addition, GoTrue has none): the `authorizationCode` of the app's
/// `ASAuthorizationAppleIDCredential`, as UTF-8 text. The server trades it at Apple's token
/// endpoint for a refresh token and keeps it, sealed, to revoke it when the account is deleted
/// (see ``AppleTokens``). The sign-in does not depend on it: a refused or stale code is logged.
struct IDTokenGrant: TokenGrant {
    static let grantType = "id_token"
    static let metric = GrantMetric.signIn

    /// GoTrue's `IdTokenGrantParams`.
    struct Body: Decodable, Sendable {
        var id_token: String?
        var access_token: String?
        var nonce: String?
        var provider: String?
        var client_id: String?
        var issuer: String?
        var link_identity: Bool?
        /// Apple's authorization code (Latchkey addition).
        var apple_authorization_code: String?
    }

    private let dependencies: FeatureDependencies

    init(_ dependencies: FeatureDependencies) {
        self.dependencies = dependencies
    }

    func session(for body: Body, ipAddress: String) async throws -> SessionResponse {
        try await session(for: body, linkingTo: nil, ipAddress: ipAddress)
    }

    func session(for body: Body, request: Request, context: AuthRequestContext) async throws -> SessionResponse {
        var user: UUID?
        if body.link_identity == true {
            guard request.headers[.authorization] != nil else {
                throw AuthError.oauth("invalid request", "Linking requires a valid user access token in Authorization")
            }
            user = try await dependencies.authentication.user(bearer: request.bearerToken()).user.id
        }
        return try await session(for: body, linkingTo: user, ipAddress: context.clientIP)
    }

    private func session(for body: Body, linkingTo user: UUID?, ipAddress: String) async throws -> SessionResponse {
        try await dependencies.limits.admitSignIn(from: ipAddress)
        guard let idToken = body.id_token, !idToken.isEmpty else { throw AuthError.oauth("invalid request", "id_token required") }
        if body.provider?.isEmpty ?? true, body.client_id?.isEmpty ?? true || body.issuer?.isEmpty ?? true {
            throw AuthError.oauth("invalid request", "provider or client_id and issuer required")
        }
        let (provider, data) = try await dependencies.providers.verify(
            idToken: idToken, provider: body.provider, issuer: body.issuer, clientID: body.client_id, nonce: body.nonce,
            accessToken: body.access_token)
        let response =
            if let user {
                try await dependencies.providers.link(provider, data, to: user, ipAddress: ipAddress)
            } else {
                try await dependencies.providers.signIn(provider, data, ipAddress: ipAddress)
            }
        if provider.name == AppleTokens.provider, let code = body.apple_authorization_code, !code.isEmpty,
            let userID = UUID(uuidString: response.user.id), let clientID = Self.audience(of: idToken)
        {
            // The code was issued to the client the ID token names: the app's bundle ID.
            await dependencies.appleTokens.exchangeAndKeep(code: code, clientID: clientID, userID: userID, providerID: data.subject)
        }
        return response
    }

    /// The audience of `token`, verified already: its `aud`, or the first of a list.
    static func audience(of token: String) -> String? {
        let parts = token.utf8.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, let payload = Base64URL.decode(utf8: parts[1]),
            let claims = try? JSONDecoder().decode([String: JSONValue].self, from: payload)
        else { return nil }
        switch claims["aud"] {
        case .string(let audience)?: return audience
        case .array(let audiences)?: return audiences.first?.stringValue
        default: return nil
        }
    }
}
