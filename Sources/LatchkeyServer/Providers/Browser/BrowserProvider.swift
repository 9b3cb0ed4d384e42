import Foundation
import HTTPTypes

/// What the server sends a browser to a provider's authorization page with.
struct ProviderAuthorization: Sendable {
    /// The OAuth `state`: the id of the stored ``ProviderFlow``.
    var state: String
    /// The `nonce` the provider's ID token must carry (the SHA-256, in hex, of the flow's raw nonce).
    var nonce: String
    /// The S256 challenge of the flow's provider verifier, for providers that take PKCE.
    var codeChallenge: String?
    /// Scopes the app asked for, added to the provider's own.
    var scopes: [String]
    /// The server's callback URL registered with the provider.
    var redirectURI: String
    /// Further parameters the app passed to `/authorize` (GoTrue forwards them), minus the
    /// ones the server controls.
    var parameters: [(String, String)]
}

/// What a provider said once its authorization code was exchanged.
struct ProviderSignInResult: Sendable {
    var data: ProviderUserData
    /// The provider's access token, handed to implicit-flow apps as `provider_token`.
    var accessToken: String
    var refreshToken: String?
}

/// A provider people sign in with in a browser (OAuth 2 authorization code): where to send
/// them, and what the code they come back with says about them.
protocol BrowserProvider: Sendable {
    /// The provider's name, as identities store it.
    var name: String { get }
    /// Sign in even when the provider gives no email address.
    var emailOptional: Bool { get }
    /// Whether the server sends the provider a PKCE challenge of its own.
    var usesPKCE: Bool { get }
    /// The provider's authorization URL for `request`.
    func authorizationURL(_ request: ProviderAuthorization) async throws -> URL
    /// Exchanges `code` and reads who signed in. `fields` are the callback's other
    /// parameters (Apple sends the name there, once); `nonce` is the flow's raw nonce and
    /// `verifier` its provider verifier.
    func finish(
        code: String, redirectURI: String, nonce: String, verifier: String?, fields: [String: String]
    ) async throws
        -> ProviderSignInResult
}

extension BrowserProvider {
    /// `base` with `items` added to its query, spaces as `%20` (Apple refuses `+`).
    static func url(_ base: String, adding items: [(String, String)]) throws -> URL {
        guard var components = URLComponents(string: base) else { throw ProviderFetchError("the provider's authorization endpoint is not a URL") }
        components.queryItems = (components.queryItems ?? []) + items.map { URLQueryItem(name: $0.0, value: $0.1) }
        // URLComponents leaves `+` alone in a query; it means a space to form decoders.
        components.percentEncodedQuery = components.percentEncodedQuery?.replacingOccurrences(of: "+", with: "%2B")
        guard let url = components.url else { throw ProviderFetchError("the provider's authorization URL could not be built") }
        return url
    }

    /// The scopes to ask for: the provider's own, then the app's, each once.
    static func scopes(_ own: [String], _ requested: [String]) -> String {
        var seen = Set<String>()
        return (own + requested).filter { !$0.isEmpty && seen.insert($0).inserted }.joined(separator: " ")
    }
}

/// A token endpoint's answer (RFC 6749 §5.1), with the ID token OpenID Connect adds.
struct ProviderTokenResponse: Decodable, Sendable {
    var access_token: String?
    var refresh_token: String?
    var id_token: String?
    var error: String?
    var error_description: String?
}

extension ProviderHTTP {
    /// Posts `request` to a token endpoint and decodes its answer; a refusal is GoTrue's
    /// "Unable to exchange external code" without the code or the provider's body.
    func exchange(_ request: ProviderRequest, provider: String) async throws -> ProviderTokenResponse {
        let response: ProviderResponse
        do {
            response = try await send(request)
        } catch {
            throw AuthError(.internalServerError, "unexpected_failure", "Unable to exchange external code with \(provider)")
        }
        guard let token = try? JSONDecoder().decode(ProviderTokenResponse.self, from: response.body) else {
            throw AuthError(.internalServerError, "unexpected_failure", "Unable to exchange external code with \(provider)")
        }
        guard response.status == 200, let accessToken = token.access_token, !accessToken.isEmpty else {
            throw AuthError.oauth(
                token.error.map { String($0.prefix(64)) } ?? "server_error", "Unable to exchange external code with \(provider)")
        }
        return token
    }
}
