import Foundation

/// Request bodies, as GoTrue names their fields: the server decodes them, a client encodes
/// them. Every field is optional so that the server, not the decoder, says which one is missing;
/// unknown fields are ignored.

/// `POST /signup`.
///
/// Without `email`, `phone` and `password` it is an anonymous sign-in (when the server allows
/// them). `code_challenge` and `code_challenge_method` start a PKCE flow: the confirmation link
/// then redirects with `?code=`.
public struct SignUpBody: Codable, Sendable, Hashable {
    public var email: String?
    public var phone: String?
    public var password: String?
    public var data: [String: JSONValue]?
    public var redirect_to: String?
    /// supabase-js sends `options.emailRedirectTo` as `email_redirect_to` in some versions.
    public var email_redirect_to: String?
    public var code_challenge: String?
    public var code_challenge_method: String?
    /// How a phone sign-up's code travels: `sms` (the default) or `whatsapp`.
    public var channel: String?

    public init(
        email: String? = nil, phone: String? = nil, password: String? = nil, data: [String: JSONValue]? = nil, redirect_to: String? = nil,
        email_redirect_to: String? = nil, code_challenge: String? = nil, code_challenge_method: String? = nil, channel: String? = nil
    ) {
        self.channel = channel
        self.email = email
        self.phone = phone
        self.password = password
        self.data = data
        self.redirect_to = redirect_to
        self.email_redirect_to = email_redirect_to
        self.code_challenge = code_challenge
        self.code_challenge_method = code_challenge_method
    }
}

/// `POST /token?grant_type=pkce`: the authorization code from a link's `?code=` and the
/// verifier its challenge was made from.
public struct PKCEGrantBody: Codable, Sendable, Hashable {
    public var auth_code: String?
    public var code_verifier: String?

    public init(auth_code: String? = nil, code_verifier: String? = nil) {
        self.auth_code = auth_code
        self.code_verifier = code_verifier
    }
}

/// `POST /token?grant_type=id_token`: an ID token from a provider (Apple, Google…), the raw
/// nonce whose SHA-256 the token carries, and the provider's access token when its `at_hash`
/// must be checked. With `link_identity` and the user's bearer token, the identity is linked
/// to that user instead of signing in.
public struct IDTokenGrantBody: Codable, Sendable, Hashable {
    public var provider: String?
    public var id_token: String?
    public var nonce: String?
    public var access_token: String?
    public var link_identity: Bool?
    /// Sign in with Apple's `authorizationCode` (UTF-8), with provider `apple`: Latchkey's
    /// server trades it for Apple's refresh token and revokes that token when the account is
    /// deleted. A Latchkey addition; GoTrue ignores it.
    public var apple_authorization_code: String?

    public init(
        provider: String? = nil, id_token: String? = nil, nonce: String? = nil, access_token: String? = nil, link_identity: Bool? = nil,
        apple_authorization_code: String? = nil
    ) {
        self.provider = provider
        self.id_token = id_token
        self.nonce = nonce
        self.access_token = access_token
        self.link_identity = link_identity
        self.apple_authorization_code = apple_authorization_code
    }
}

/// `POST /otp` (and `POST /magiclink`, which ignores `create_user`): mails a sign-in link and
/// code, creating the account first when `create_user` is not `false`.
public struct OTPBody: Codable, Sendable, Hashable {
    public var email: String?
    public var phone: String?
    public var create_user: Bool?
    public var data: [String: JSONValue]?
    public var channel: String?
    public var code_challenge: String?
    public var code_challenge_method: String?

    public init(
        email: String? = nil, phone: String? = nil, create_user: Bool? = nil, data: [String: JSONValue]? = nil, channel: String? = nil,
        code_challenge: String? = nil, code_challenge_method: String? = nil
    ) {
        self.email = email
        self.phone = phone
        self.create_user = create_user
        self.data = data
        self.channel = channel
        self.code_challenge = code_challenge
        self.code_challenge_method = code_challenge_method
    }
}

/// `POST /invite`.
public struct InviteBody: Codable, Sendable, Hashable {
    public var email: String?
    public var data: [String: JSONValue]?

    public init(email: String? = nil, data: [String: JSONValue]? = nil) {
        self.email = email
        self.data = data
    }
}

/// `POST /admin/generate_link`: `type` is `signup`, `invite`, `magiclink`, `recovery`,
/// `email_change_current` or `email_change_new`.
public struct GenerateLinkBody: Codable, Sendable, Hashable {
    public var type: String?
    public var email: String?
    public var new_email: String?
    public var password: String?
    public var data: [String: JSONValue]?
    public var redirect_to: String?

    public init(
        type: String? = nil, email: String? = nil, new_email: String? = nil, password: String? = nil, data: [String: JSONValue]? = nil,
        redirect_to: String? = nil
    ) {
        self.type = type
        self.email = email
        self.new_email = new_email
        self.password = password
        self.data = data
        self.redirect_to = redirect_to
    }
}

/// `POST /token?grant_type=password`.
public struct PasswordGrantBody: Codable, Sendable, Hashable {
    public var email: String?
    /// A phone number instead of `email`.
    public var phone: String?
    public var password: String?

    public init(email: String? = nil, password: String? = nil, phone: String? = nil) {
        self.email = email
        self.password = password
        self.phone = phone
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
///
/// `nonce` is the code from `GET /reauthenticate`, which a password change needs when the
/// server requires reauthentication; `code_challenge` makes an email change a PKCE flow.
public struct UpdateUserBody: Codable, Sendable, Hashable {
    public var email: String?
    public var password: String?
    public var data: [String: JSONValue]?
    public var nonce: String?
    /// The password being replaced, when the server asks for it (GoTrue's
    /// `SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD`).
    public var current_password: String?
    public var code_challenge: String?
    public var code_challenge_method: String?
    /// A new phone number: a code is sent to it by SMS (`channel`: `sms` or `whatsapp`), and
    /// `POST /verify` type `phone_change` makes it the user's.
    public var phone: String?
    public var channel: String?

    public init(
        email: String? = nil, password: String? = nil, data: [String: JSONValue]? = nil, nonce: String? = nil,
        current_password: String? = nil, code_challenge: String? = nil, code_challenge_method: String? = nil, phone: String? = nil,
        channel: String? = nil
    ) {
        self.phone = phone
        self.channel = channel
        self.email = email
        self.password = password
        self.data = data
        self.nonce = nonce
        self.current_password = current_password
        self.code_challenge = code_challenge
        self.code_challenge_method = code_challenge_method
    }
}

/// `POST /verify`: either `token_hash` (the token of an email link), or `email` with `token`
/// (the code from the email).
public struct VerifyBody: Codable, Sendable, Hashable {
    public var type: String?
    public var token: String?
    public var token_hash: String?
    public var email: String?
    public var phone: String?
    public var redirect_to: String?

    public init(
        type: String? = nil, token: String? = nil, token_hash: String? = nil, email: String? = nil, phone: String? = nil,
        redirect_to: String? = nil
    ) {
        self.type = type
        self.token = token
        self.token_hash = token_hash
        self.email = email
        self.phone = phone
        self.redirect_to = redirect_to
    }
}

/// `POST /recover` and `POST /resend`.
public struct EmailBody: Codable, Sendable, Hashable {
    public var email: String?
    public var phone: String?
    public var type: String?
    public var redirect_to: String?
    public var code_challenge: String?
    public var code_challenge_method: String?

    public init(
        email: String? = nil, phone: String? = nil, type: String? = nil, redirect_to: String? = nil, code_challenge: String? = nil,
        code_challenge_method: String? = nil
    ) {
        self.email = email
        self.phone = phone
        self.type = type
        self.redirect_to = redirect_to
        self.code_challenge = code_challenge
        self.code_challenge_method = code_challenge_method
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
    /// A phone number (E.164; GoTrue drops a leading `+` and spaces).
    public var phone: String?
    public var phone_confirm: Bool?
    public var user_metadata: [String: JSONValue]?
    public var app_metadata: [String: JSONValue]?
    public var ban_duration: String?
    public var role: String?
    /// The new user's id (a UUID), instead of a generated one: creating only.
    public var id: String?
    /// A hash to store instead of hashing `password`: bcrypt (`$2a$`, `$2b$`, `$2y$`) or
    /// Firebase scrypt (`$fbscrypt$…`), as GoTrue accepts it.
    public var password_hash: String?

    public init(
        email: String? = nil, password: String? = nil, email_confirm: Bool? = nil, user_metadata: [String: JSONValue]? = nil,
        app_metadata: [String: JSONValue]? = nil, ban_duration: String? = nil, role: String? = nil, id: String? = nil,
        password_hash: String? = nil, phone: String? = nil, phone_confirm: Bool? = nil
    ) {
        self.id = id
        self.password_hash = password_hash
        self.phone = phone
        self.phone_confirm = phone_confirm
        self.email = email
        self.password = password
        self.email_confirm = email_confirm
        self.user_metadata = user_metadata
        self.app_metadata = app_metadata
        self.ban_duration = ban_duration
        self.role = role
    }
}
