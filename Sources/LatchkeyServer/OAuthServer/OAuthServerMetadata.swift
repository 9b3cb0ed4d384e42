import Foundation
import Hummingbird

/// The authorization server's metadata (RFC 8414; OpenID Connect Discovery 1.0), served at
/// `/.well-known/oauth-authorization-server` and `/.well-known/openid-configuration`, with
/// GoTrue's members. Endpoints are under the token issuer (the server's URL and `/auth/v1`,
/// which this server also serves), so a client that discovers them reaches them either way.
struct OAuthServerMetadata: ResponseEncodable, Sendable, Equatable {
    var issuer: String
    var authorization_endpoint: String
    var token_endpoint: String
    var jwks_uri: String
    var userinfo_endpoint: String
    var registration_endpoint: String?
    var scopes_supported = OAuthScope.supported
    var response_types_supported = ["code"]
    var response_modes_supported = ["query"]
    var grant_types_supported = OAuthClientRecord.grantTypes
    var subject_types_supported = ["public"]
    var id_token_signing_alg_values_supported: [String]
    var token_endpoint_auth_methods_supported = ["client_secret_basic", "client_secret_post", "none"]
    var code_challenge_methods_supported = ["S256"]
    var claims_supported = [
        "sub", "aud", "iss", "exp", "iat", "auth_time", "nonce", "email", "email_verified", "phone_number", "phone_number_verified",
        "name", "picture", "preferred_username", "updated_at",
    ]

    /// The metadata of a server whose tokens `issuer` issues, signed with `algorithm`.
    init(issuer: String, algorithm: String, dynamicRegistration: Bool) {
        let base = issuer.trimmingTrailingSlash()
        self.issuer = issuer
        authorization_endpoint = base + "/oauth/authorize"
        token_endpoint = base + "/oauth/token"
        jwks_uri = base + "/.well-known/jwks.json"
        userinfo_endpoint = base + "/oauth/userinfo"
        registration_endpoint = dynamicRegistration ? base + "/oauth/clients/register" : nil
        id_token_signing_alg_values_supported = [algorithm]
    }
}
