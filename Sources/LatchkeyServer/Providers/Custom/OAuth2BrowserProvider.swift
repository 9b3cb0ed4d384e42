import Foundation
import HTTPTypes
import LatchkeyWire

/// A custom `oauth2` provider in the browser: its hand-given authorization and token endpoints
/// (PKCE when the provider is set to), then the person from its user-info endpoint, read through
/// the provider's `attribute_mapping` (identity key → the user-info member it comes from; `sub`,
/// `email`, `email_verified` and `name` default to the members of those names).
struct OAuth2BrowserProvider: BrowserProvider {
    let record: CustomProviderRecord
    let clientSecret: String
    let http: any ProviderHTTP

    var name: String { record.identifier }
    var emailOptional: Bool { record.emailOptional }
    var usesPKCE: Bool { record.pkceEnabled }

    func authorizationURL(_ request: ProviderAuthorization) async throws -> URL {
        var items = [
            ("client_id", record.clientID), ("redirect_uri", request.redirectURI), ("response_type", "code"),
            ("scope", Self.scopes(record.scopes, request.scopes)), ("state", request.state),
        ]
        if usesPKCE, let challenge = request.codeChallenge { items += [("code_challenge", challenge), ("code_challenge_method", "S256")] }
        return try Self.url(record.authorizationURL ?? "", adding: items + request.parameters)
    }

    func finish(
        code: String, redirectURI: String, nonce: String, verifier: String?, fields: [String: String]
    ) async throws
        -> ProviderSignInResult
    {
        guard let tokenURL = URL(string: record.tokenURL ?? ""), let userinfoURL = URL(string: record.userinfoURL ?? "") else {
            throw AuthError(.badRequest, "oauth_provider_not_supported", "Unsupported provider: \(name) has no endpoints")
        }
        var form = [("grant_type", "authorization_code"), ("code", code), ("redirect_uri", redirectURI)]
        if usesPKCE, let verifier { form.append(("code_verifier", verifier)) }
        let token = try await http.exchange(.form(tokenURL, form, basicAuthentication: record.clientID, secret: clientSecret), provider: name)
        let accessToken = token.access_token ?? ""
        let response: ProviderResponse
        do {
            response = try await http.send(
                ProviderRequest(url: userinfoURL, headers: [("Accept", "application/json"), ("Authorization", "Bearer " + accessToken)]))
        } catch {
            throw AuthError(.internalServerError, "unexpected_failure", "Unable to reach the identity provider \(name)")
        }
        guard response.status == 200, let info = try? JSONDecoder().decode([String: JSONValue].self, from: response.body) else {
            throw AuthError(.internalServerError, "unexpected_failure", "Error getting user profile from external provider")
        }
        var claims = info
        for (key, member) in record.attributeMapping { claims[key] = info[member] }
        // A numeric subject (many OAuth 2 APIs number their users) is kept as its text.
        if case .number(let number)? = claims["sub"] { claims["sub"] = .string(String(Int64(number))) }
        guard let subject = claims["sub"]?.stringValue, !subject.isEmpty else {
            throw AuthError(
                .internalServerError, "unexpected_failure", "The provider's user info has no subject (map one with attribute_mapping.sub)")
        }
        var data = ProviderUserData(claims: claims, style: .generic)
        data.identityData["iss"] = .string(record.issuer)
        data.subject = subject
        return ProviderSignInResult(data: data, accessToken: accessToken, refreshToken: token.refresh_token)
    }
}
