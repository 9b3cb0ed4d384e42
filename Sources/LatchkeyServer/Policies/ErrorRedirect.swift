import Foundation
import HTTPTypes
import LatchkeyWire

/// Redirect URLs that carry an outcome to an app: a code in the query, a session in the
/// fragment, or GoTrue's `error`, `error_code` and `error_description`.
enum ErrorRedirect {
    /// `url` carrying `error` in the query and in the fragment (with GoTrue's `sb` marker), as
    /// GoTrue's `redirectErrors` sends failed browser flows; `inQuery: false` leaves the query
    /// alone (an implicit email link).
    static func url(for error: AuthError, to url: String, inQuery: Bool = true) -> String {
        // An OAuth error (the provider's, or a bad ID token) has no GoTrue error code.
        let items = [
            URLQueryItem(name: "error", value: error.oauthName),
            error.isOAuthShaped ? nil : URLQueryItem(name: "error_code", value: error.code),
            URLQueryItem(name: "error_description", value: error.message),
        ].compactMap { $0 }
        var fragment = URLComponents()
        fragment.queryItems = items + [URLQueryItem(name: "sb", value: "")]
        return replacingFragment(of: inQuery ? adding(query: items, to: url) : url, with: fragment.percentEncodedQuery ?? "")
    }

    /// `url` with `items` in its query, replacing parameters of the same names.
    static func adding(query items: [URLQueryItem], to url: String) -> String {
        guard var components = URLComponents(string: url) else { return url }
        let names = Set(items.map(\.name))
        components.queryItems = (components.queryItems ?? []).filter { !names.contains($0.name) } + items
        return components.string ?? url
    }

    static func replacingFragment(of url: String, with fragment: String) -> String {
        let base = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? url
        return base + "#" + fragment
    }

    /// `url` with `session` in its fragment, as a browser sign-in's implicit flow lands (GoTrue's
    /// order: `access_token`, `expires_at`, `expires_in`, the provider's tokens when there are
    /// any, `refresh_token`, `token_type`).
    static func replacingFragment(
        of url: String, withSession session: SessionResponse, providerToken: String? = nil, providerRefreshToken: String? = nil
    ) -> String {
        var fragment = URLComponents()
        fragment.queryItems = [
            URLQueryItem(name: "access_token", value: session.access_token),
            URLQueryItem(name: "expires_at", value: session.expires_at.map(String.init)),
            URLQueryItem(name: "expires_in", value: session.expires_in.map(String.init)),
        ]
        if let providerToken { fragment.queryItems?.append(URLQueryItem(name: "provider_token", value: providerToken)) }
        if let providerRefreshToken, !providerRefreshToken.isEmpty {
            fragment.queryItems?.append(URLQueryItem(name: "provider_refresh_token", value: providerRefreshToken))
        }
        fragment.queryItems? += [
            URLQueryItem(name: "refresh_token", value: session.refresh_token), URLQueryItem(name: "token_type", value: "bearer"),
        ]
        return replacingFragment(of: url, with: fragment.percentEncodedQuery ?? "")
    }
}

extension AuthError {
    /// The OAuth `error` of a redirect: the provider's own for an OAuth-shaped error,
    /// `access_denied` for a refused sign-up, ban or unverified provider address (as GoTrue),
    /// else by status (``oauthErrorName``).
    var oauthName: String {
        if isOAuthShaped { return code }
        if ["signup_disabled", "user_banned", "provider_email_needs_verification"].contains(code) { return "access_denied" }
        return oauthErrorName
    }
}
