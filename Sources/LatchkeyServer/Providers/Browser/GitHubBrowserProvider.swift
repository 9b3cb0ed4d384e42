import Foundation
import HTTPTypes
import LatchkeyWire

/// GitHub in the browser: OAuth 2 (GitHub has no ID tokens), the person read from its REST API
/// (`/user`, then `/user/emails` for the addresses and whether GitHub verified them), as
/// GoTrue's GitHub provider does. `GOTRUE_EXTERNAL_GITHUB_URL` points at GitHub Enterprise
/// (`<URL>/login/oauth/…`, `<URL>/api/v3`).
struct GitHubBrowserProvider: BrowserProvider {
    static let defaultWeb = "https://github.com"
    static let defaultAPI = "https://api.github.com"

    let clientID: String
    let clientSecret: String
    /// `https://github.com`, or the Enterprise server.
    let webBase: String
    /// `https://api.github.com`, or `<Enterprise server>/api/v3`.
    let apiBase: String
    let emailOptional: Bool
    let http: any ProviderHTTP

    var name: String { "github" }
    var usesPKCE: Bool { false }

    init(settings: ProviderSettings, baseURL: String?, http: any ProviderHTTP) {
        clientID = settings.clientIDs.first ?? ""
        clientSecret = settings.secret ?? ""
        emailOptional = settings.emailOptional
        if let base = baseURL?.trimmingTrailingSlash(), !base.isEmpty {
            webBase = base
            apiBase = base + "/api/v3"
        } else {
            webBase = Self.defaultWeb
            apiBase = Self.defaultAPI
        }
        self.http = http
    }

    func authorizationURL(_ request: ProviderAuthorization) async throws -> URL {
        try Self.url(
            webBase + "/login/oauth/authorize",
            adding: [
                ("client_id", clientID), ("redirect_uri", request.redirectURI), ("response_type", "code"),
                ("scope", Self.scopes(["user:email"], request.scopes)), ("state", request.state),
            ] + request.parameters)
    }

    func finish(
        code: String, redirectURI: String, nonce: String, verifier: String?, fields: [String: String]
    ) async throws
        -> ProviderSignInResult
    {
        guard let tokenURL = URL(string: webBase + "/login/oauth/access_token") else { throw unreachable() }
        let token = try await http.exchange(
            .form(
                tokenURL,
                [
                    ("grant_type", "authorization_code"), ("client_id", clientID), ("client_secret", clientSecret), ("code", code),
                    ("redirect_uri", redirectURI),
                ]),
            provider: name)
        let accessToken = token.access_token ?? ""
        struct User: Decodable {
            var id: Int
            var login: String?
            var name: String?
            var avatar_url: String?
        }
        struct Address: Decodable {
            var email: String
            var primary: Bool?
            var verified: Bool?
        }
        let user: User = try await get("/user", accessToken)
        let addresses: [Address] = try await get("/user/emails", accessToken)
        // GoTrue's choice: the primary address, else the last one listed.
        let chosen = addresses.first { $0.primary == true && !$0.email.isEmpty } ?? addresses.last { !$0.email.isEmpty }
        let subject = String(user.id)
        var data: [String: JSONValue] = [
            "iss": .string(apiBase), "sub": .string(subject), "provider_id": .string(subject), "phone_verified": .bool(false),
        ]
        if let login = user.login {
            data["preferred_username"] = .string(login)
            data["user_name"] = .string(login)
        }
        if let fullName = user.name, !fullName.isEmpty {
            data["name"] = .string(fullName)
            data["full_name"] = .string(fullName)
        }
        if let avatar = user.avatar_url { data["avatar_url"] = .string(avatar) }
        let email = chosen?.email.lowercased()
        let verified = email != nil && chosen?.verified == true
        if let email { data["email"] = .string(email) }
        data["email_verified"] = .bool(verified)
        return ProviderSignInResult(
            data: ProviderUserData(subject: subject, email: email, emailVerified: verified, identityData: data), accessToken: accessToken,
            refreshToken: token.refresh_token)
    }

    private func get<T: Decodable>(_ path: String, _ accessToken: String) async throws -> T {
        guard let url = URL(string: apiBase + path) else { throw unreachable() }
        let response: ProviderResponse
        do {
            response = try await http.send(
                ProviderRequest(url: url, headers: [("Accept", "application/vnd.github+json"), ("Authorization", "Bearer " + accessToken)]))
        } catch {
            throw unreachable()
        }
        guard response.status == 200, let decoded = try? JSONDecoder().decode(T.self, from: response.body) else {
            throw AuthError(.internalServerError, "unexpected_failure", "Error getting user profile from external provider")
        }
        return decoded
    }

    private func unreachable() -> AuthError {
        AuthError(.internalServerError, "unexpected_failure", "Unable to reach the identity provider github")
    }
}
