import Foundation
import HTTPTypes
import LatchkeyWire

/// An OpenID Connect provider in the browser (Google, Keycloak, Apple): its endpoints from its
/// discovery document, the code exchanged with the client's secret (and PKCE where the
/// provider takes it), the person read from the ID token, verified as the ID-token grant
/// verifies one, nonce included.
struct OIDCBrowserProvider: BrowserProvider {
    /// How the client authenticates at the token endpoint.
    enum CredentialStyle: Sendable {
        /// As the discovery document says: HTTP Basic unless only `client_secret_post` is listed.
        case discovered
        /// `client_id` and `client_secret` in the form (Apple).
        case form
    }

    let provider: ResolvedProvider
    let clientID: String
    let clientSecret: @Sendable () throws -> String
    /// The scopes always asked for.
    let ownScopes: [String]
    /// Parameters always added to the authorization URL (Apple's `response_mode=form_post`).
    let fixedParameters: [(String, String)]
    let usesPKCE: Bool
    let credentials: CredentialStyle
    /// A custom provider's `attribute_mapping`.
    let attributeMapping: [String: String]
    let directory: OIDCProviderDirectory
    let verifier: IDTokenVerifier
    let http: any ProviderHTTP

    var name: String { provider.name }
    var emailOptional: Bool { provider.emailOptional }

    func authorizationURL(_ request: ProviderAuthorization) async throws -> URL {
        let document = try await discovery()
        guard let endpoint = document.authorization_endpoint else { throw unsupported("no authorization endpoint") }
        var items = [
            ("client_id", clientID), ("redirect_uri", request.redirectURI), ("response_type", "code"),
            ("scope", Self.scopes(ownScopes, request.scopes)), ("state", request.state), ("nonce", request.nonce),
        ]
        if usesPKCE, let challenge = request.codeChallenge { items += [("code_challenge", challenge), ("code_challenge_method", "S256")] }
        return try Self.url(endpoint, adding: items + fixedParameters + request.parameters)
    }

    func finish(
        code: String, redirectURI: String, nonce: String, verifier codeVerifier: String?, fields: [String: String]
    ) async throws
        -> ProviderSignInResult
    {
        let document = try await discovery()
        guard let endpoint = document.token_endpoint, let url = URL(string: endpoint) else { throw unsupported("no token endpoint") }
        let secret: String
        do {
            secret = try clientSecret()
        } catch {
            throw AuthError(.internalServerError, "unexpected_failure", "The client secret for \(name) could not be made")
        }
        var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI)]
        if usesPKCE, let codeVerifier { form.append(("code_verifier", codeVerifier)) }
        let methods = document.token_endpoint_auth_methods_supported ?? ["client_secret_basic"]
        let request: ProviderRequest
        if credentials == .discovered, methods.contains("client_secret_basic") || !methods.contains("client_secret_post") {
            request = .form(url, form, basicAuthentication: clientID, secret: secret)
        } else {
            request = .form(url, form + [("client_id", clientID), ("client_secret", secret)])
        }
        let token = try await http.exchange(request, provider: name)
        guard let idToken = token.id_token else { throw AuthError.oauth("server_error", "\(name) answered without an ID token") }
        let claims = try await verifier.verify(idToken, for: provider, nonce: nonce, accessToken: token.access_token)
        var data = ProviderUserData(claims: claims, style: provider.claims)
        if provider.claims == .apple, let user = fields["user"] { data.addAppleName(user) }
        data.map(attributeMapping, from: claims)
        return ProviderSignInResult(data: data, accessToken: token.access_token ?? "", refreshToken: token.refresh_token)
    }

    private func discovery() async throws -> OIDCDiscoveryDocument {
        do {
            return try await directory.document(issuer: provider.discoveryIssuer)
        } catch {
            throw AuthError(.internalServerError, "unexpected_failure", "Unable to reach the identity provider \(name)")
        }
    }

    private func unsupported(_ reason: String) -> AuthError {
        AuthError(.badRequest, "oauth_provider_not_supported", "Unsupported provider: \(name) has \(reason)")
    }
}

extension ProviderUserData {
    /// Adds the name Sign in with Apple posts with the callback (`user`, JSON, on the first
    /// authorization only) as `name` and `full_name`, as GoTrue does.
    mutating func addAppleName(_ json: String) {
        struct AppleUser: Decodable {
            struct Name: Decodable {
                var firstName: String?
                var lastName: String?
            }
            var name: Name?
        }
        guard let user = try? JSONDecoder().decode(AppleUser.self, from: Data(json.utf8)), let name = user.name else { return }
        let full = [name.firstName, name.lastName].compactMap { $0 }.joined(separator: " ").trimmingCharacters(in: .whitespaces)
        guard !full.isEmpty else { return }
        identityData["name"] = .string(String(full.prefix(256)))
        identityData["full_name"] = .string(String(full.prefix(256)))
    }
}
