import Foundation

/// Request bodies, as GoTrue names their fields. Unknown fields are ignored.
struct SignUpBody: Decodable {
    var email: String?
    var password: String?
    var data: [String: JSONValue]?
    var redirect_to: String?
    /// supabase-js sends `options.emailRedirectTo` as `email_redirect_to` in some versions.
    var email_redirect_to: String?
}

struct PasswordGrantBody: Decodable {
    var email: String?
    var password: String?
}

struct RefreshGrantBody: Decodable {
    var refresh_token: String?
}

struct UpdateUserBody: Decodable {
    var email: String?
    var password: String?
    var data: [String: JSONValue]?
}

struct VerifyBody: Decodable {
    var type: String?
    var token: String?
    var token_hash: String?
    var email: String?
    var redirect_to: String?
}

struct EmailBody: Decodable {
    var email: String?
    var type: String?
    var redirect_to: String?
}

struct ProfileUpdateBody: Decodable {
    var display_name: String?
    var avatar_url: String?
}

struct AdminUserBody: Decodable {
    var email: String?
    var password: String?
    var email_confirm: Bool?
    var user_metadata: [String: JSONValue]?
    var app_metadata: [String: JSONValue]?
    var ban_duration: String?
    var role: String?
}
