import Foundation

/// The scopes an OAuth client may ask for, as GoTrue supports them.
///
/// `openid` adds an ID token; `email`, `phone` and `profile` choose what the ID token and
/// `GET /oauth/userinfo` say about the user; `offline_access` is accepted and changes nothing
/// (refresh tokens are always issued).
enum OAuthScope {
    static let supported = ["openid", "profile", "email", "phone", "offline_access"]

    /// The scopes of a space-separated list, without empty entries.
    static func parse(_ text: String?) -> [String] {
        (text ?? "").split(separator: " ").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Whether `scope`, a space-separated list, names `name`.
    static func contains(_ scope: String?, _ name: String) -> Bool {
        parse(scope).contains(name)
    }
}
