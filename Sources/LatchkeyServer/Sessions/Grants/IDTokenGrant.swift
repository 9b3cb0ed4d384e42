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
struct IDTokenGrant: TokenGrant {
    static let grantType = "id_token"

    /// GoTrue's `IdTokenGrantParams`.
    struct Body: Decodable, Sendable {
        var id_token: String?
        var access_token: String?
        var nonce: String?
        var provider: String?
        var client_id: String?
        var issuer: String?
        var link_identity: Bool?
    }

    private let dependencies: GrantDependencies

    init(_ dependencies: GrantDependencies) {
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
        if let user { return try await dependencies.providers.link(provider, data, to: user, ipAddress: ipAddress) }
        return try await dependencies.providers.signIn(provider, data, ipAddress: ipAddress)
    }
}
