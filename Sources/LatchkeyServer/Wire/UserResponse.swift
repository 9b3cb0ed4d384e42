import Foundation

/// The GoTrue user object, as `/user`, `/signup` and the admin endpoints return it.
struct UserResponse: Encodable, Sendable {
    struct Identity: Encodable, Sendable {
        var identity_id: String
        var id: String
        var user_id: String
        var identity_data: [String: JSONValue]
        var provider: String
        var last_sign_in_at: String?
        var created_at: String
        var updated_at: String
        var email: String
    }

    var id: String
    var aud: String
    var role: String
    var email: String
    var email_confirmed_at: String?
    var phone: String
    var confirmation_sent_at: String?
    var confirmed_at: String?
    var recovery_sent_at: String?
    var new_email: String?
    var email_change_sent_at: String?
    var last_sign_in_at: String?
    var app_metadata: [String: JSONValue]
    var user_metadata: [String: JSONValue]
    var identities: [Identity]
    var banned_until: String?
    var created_at: String
    var updated_at: String
    var is_anonymous: Bool

    init(_ user: UserRecord) {
        id = user.id.uuidString.lowercased()
        aud = user.aud
        role = user.role
        email = user.email
        email_confirmed_at = user.emailConfirmedAt.map(WireDate.string)
        phone = ""
        confirmation_sent_at = user.confirmationSentAt.map(WireDate.string)
        confirmed_at = email_confirmed_at
        recovery_sent_at = user.recoverySentAt.map(WireDate.string)
        new_email = user.newEmail
        email_change_sent_at = user.emailChangeSentAt.map(WireDate.string)
        last_sign_in_at = user.lastSignInAt.map(WireDate.string)
        app_metadata = user.appMetadata
        user_metadata = user.userMetadata
        banned_until = user.bannedUntil.map(WireDate.string)
        created_at = WireDate.string(user.createdAt)
        updated_at = WireDate.string(user.updatedAt)
        is_anonymous = false
        identities = [
            Identity(
                identity_id: id, id: id, user_id: id,
                identity_data: [
                    "sub": .string(id), "email": .string(user.email),
                    "email_verified": .bool(user.emailConfirmedAt != nil), "phone_verified": .bool(false),
                ],
                provider: "email", last_sign_in_at: last_sign_in_at, created_at: created_at,
                updated_at: updated_at, email: user.email)
        ]
    }
}

/// The GoTrue session object returned by `/token`, `/verify` and `/signup` with autoconfirm.
struct SessionResponse: Encodable, Sendable {
    var access_token: String
    var token_type = "bearer"
    var expires_in: Int
    var expires_at: Int
    var refresh_token: String
    var user: UserResponse

    /// The session as URL-fragment parameters, for the redirect of `GET /verify`.
    func fragment(type: String) -> String {
        var components = URLComponents()
        components.queryItems = [
            URLQueryItem(name: "access_token", value: access_token),
            URLQueryItem(name: "expires_at", value: String(expires_at)),
            URLQueryItem(name: "expires_in", value: String(expires_in)),
            URLQueryItem(name: "refresh_token", value: refresh_token),
            URLQueryItem(name: "token_type", value: token_type),
            URLQueryItem(name: "type", value: type),
        ]
        return components.percentEncodedQuery ?? ""
    }
}

/// A public profile: what any signed-in user may read about another.
struct ProfileResponse: Codable, Sendable {
    var id: String
    var display_name: String?
    var avatar_url: String?

    init(_ user: UserRecord) {
        id = user.id.uuidString.lowercased()
        display_name = user.userMetadata["display_name"]?.stringValue
            ?? user.userMetadata["full_name"]?.stringValue ?? user.userMetadata["name"]?.stringValue
        avatar_url = user.userMetadata["avatar_url"]?.stringValue
    }
}
