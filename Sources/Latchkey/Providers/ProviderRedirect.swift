import Foundation

/// What a sign-in redirect brought back to the app: the URL the browser landed on after the
/// provider (GoTrue's `/authorize` and `/user/identities/authorize` flows, and email links).
///
/// GoTrue puts the answer in the query (`?code=`, `?error=`) or in the fragment (the implicit
/// flow's tokens, and errors). Its description never shows a code or a token.
enum ProviderRedirect: Sendable, Hashable {
    /// A PKCE flow's authorization code, to trade with the stored verifier.
    case code(String)
    /// The implicit flow's tokens. The user is not in the redirect: fetch it with the token.
    case tokens(ImplicitTokens)
    /// The server or the provider refused: GoTrue's `error_code` (or the OAuth `error`) and its
    /// words for logs.
    case failure(error: String?, code: String?, description: String?)
    /// Nothing a sign-in answers with.
    case none

    /// The tokens of an implicit-flow fragment.
    struct ImplicitTokens: Sendable, Hashable {
        var accessToken: String
        var refreshToken: String
        var tokenType: String
        var expiresIn: TimeInterval?
        var expiresAt: Date?
        /// The provider's own access token, when the server passes it on.
        var providerToken: String?
        var providerRefreshToken: String?
    }

    /// Reads `url`'s query and fragment as GoTrue writes them (form encoding: a `+` is a
    /// space); a name in the query wins over the same name in the fragment. An error wins over a
    /// code or tokens.
    init(_ url: URL) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        var parameters: [String: String] = [:]
        for part in [components?.percentEncodedQuery, components?.percentEncodedFragment] {
            guard let part, !part.isEmpty else { continue }
            var parsed = URLComponents()
            parsed.percentEncodedQuery = part.replacingOccurrences(of: "+", with: "%20")
            for item in parsed.queryItems ?? [] where parameters[item.name] == nil { parameters[item.name] = item.value ?? "" }
        }
        func value(_ name: String) -> String? { parameters[name].flatMap { $0.isEmpty ? nil : $0 } }

        if value("error") != nil || value("error_code") != nil || value("error_description") != nil {
            self = .failure(error: value("error"), code: value("error_code"), description: value("error_description"))
        } else if let code = value("code") {
            self = .code(code)
        } else if let accessToken = value("access_token"), let refreshToken = value("refresh_token") {
            self = .tokens(
                ImplicitTokens(
                    accessToken: accessToken, refreshToken: refreshToken, tokenType: value("token_type") ?? "bearer",
                    expiresIn: value("expires_in").flatMap(TimeInterval.init),
                    expiresAt: value("expires_at").flatMap(TimeInterval.init).map(Date.init(timeIntervalSince1970:)),
                    providerToken: value("provider_token"), providerRefreshToken: value("provider_refresh_token")))
        } else {
            self = .none
        }
    }

    /// The failure a refused redirect means: GoTrue's `error_code` sorts it (e.g.
    /// `provider_email_needs_verification`); without one, the OAuth `error` does
    /// (`access_denied` is a refusal, `server_error` and `temporarily_unavailable` the server's
    /// trouble, anything else invalid input).
    static func authFailure(error: String?, code: String?, description: String?) -> AuthFailure {
        let status =
            switch error {
            case "server_error": 500
            case "temporarily_unavailable": 503
            case "access_denied", "unauthorized_client": 403
            default: 400
            }
        let failure = AuthFailure(backend: .server(status: status, code: code ?? error, message: description, retryAfter: nil))
        return AuthFailure(failure.category, code: failure.code, status: nil, detail: description)
    }
}

extension ProviderRedirect: CustomStringConvertible {
    var description: String {
        switch self {
        case .code: "code(<redacted>)"
        case .tokens: "tokens(<redacted>)"
        case .failure(let error, let code, _): "failure(error: \(error ?? "nil"), code: \(code ?? "nil"))"
        case .none: "none"
        }
    }
}
