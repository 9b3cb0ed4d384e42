import Foundation

/// Request bodies, as GoTrue names their fields: the server decodes them, a client encodes
/// them. Every field is optional so that the server, not the decoder, says which one is missing;
/// unknown fields are ignored.

/// `POST /signup`.
public struct SignUpBody: Codable, Sendable, Hashable {
    public var email: String?
    public var password: String?
    public var data: [String: JSONValue]?
    public var redirect_to: String?
    /// supabase-js sends `options.emailRedirectTo` as `email_redirect_to` in some versions.
    public var email_redirect_to: String?

    public init(email: String? = nil, password: String? = nil, data: [String: JSONValue]? = nil, redirect_to: String? = nil, email_redirect_to: String? = nil) {
        self.email = email
        self.password = password
        self.data = data
        self.redirect_to = redirect_to
        self.email_redirect_to = email_redirect_to
    }
}

/// `POST /token?grant_type=password`.
public struct PasswordGrantBody: Codable, Sendable, Hashable {
    public var email: String?
    public var password: String?

    public init(email: String? = nil, password: String? = nil) {
        self.email = email
        self.password = password
    }
}

/// `POST /token?grant_type=refresh_token`.
public struct RefreshGrantBody: Codable, Sendable, Hashable {
    public var refresh_token: String?

    public init(refresh_token: String? = nil) {
        self.refresh_token = refresh_token
    }
}

/// `PUT /user`.
public struct UpdateUserBody: Codable, Sendable, Hashable {
    public var email: String?
    public var password: String?
    public var data: [String: JSONValue]?

    public init(email: String? = nil, password: String? = nil, data: [String: JSONValue]? = nil) {
        self.email = email
        self.password = password
        self.data = data
    }
}

/// `POST /verify`.
public struct VerifyBody: Codable, Sendable, Hashable {
    public var type: String?
    public var token: String?
    public var token_hash: String?
    public var email: String?
    public var redirect_to: String?

    public init(type: String? = nil, token: String? = nil, token_hash: String? = nil, email: String? = nil, redirect_to: String? = nil) {
        self.type = type
        self.token = token
        self.token_hash = token_hash
        self.email = email
        self.redirect_to = redirect_to
    }
}

/// `POST /recover` and `POST /resend`.
public struct EmailBody: Codable, Sendable, Hashable {
    public var email: String?
    public var type: String?
    public var redirect_to: String?

    public init(email: String? = nil, type: String? = nil, redirect_to: String? = nil) {
        self.email = email
        self.type = type
        self.redirect_to = redirect_to
    }
}

/// `PUT /profiles/{id}`.
public struct ProfileUpdateBody: Codable, Sendable, Hashable {
    public var display_name: String?
    public var avatar_url: String?

    public init(display_name: String? = nil, avatar_url: String? = nil) {
        self.display_name = display_name
        self.avatar_url = avatar_url
    }
}

/// `POST /admin/users` and `PUT /admin/users/{id}`.
public struct AdminUserBody: Codable, Sendable, Hashable {
    public var email: String?
    public var password: String?
    public var email_confirm: Bool?
    public var user_metadata: [String: JSONValue]?
    public var app_metadata: [String: JSONValue]?
    public var ban_duration: String?
    public var role: String?

    public init(email: String? = nil, password: String? = nil, email_confirm: Bool? = nil, user_metadata: [String: JSONValue]? = nil, app_metadata: [String: JSONValue]? = nil, ban_duration: String? = nil, role: String? = nil) {
        self.email = email
        self.password = password
        self.email_confirm = email_confirm
        self.user_metadata = user_metadata
        self.app_metadata = app_metadata
        self.ban_duration = ban_duration
        self.role = role
    }
}
