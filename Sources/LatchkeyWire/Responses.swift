import Foundation

/// GoTrue's user object, as `/user`, `/signup` and the admin endpoints return it.
///
/// Field names are GoTrue's. The server fills every field it knows; a client decodes what a
/// server sends and tolerates what it leaves out (only `id` is required), so the same type
/// reads Latchkey and Supabase answers. Timestamps are ``WireDate`` strings.
public struct UserResponse: Codable, Sendable, Hashable {
    /// An identity linked to the user (for email sign-in, the email identity).
    public struct Identity: Codable, Sendable, Hashable {
        public var identity_id: String?
        public var id: String
        public var user_id: String?
        public var identity_data: [String: JSONValue]?
        public var provider: String?
        public var last_sign_in_at: String?
        public var created_at: String?
        public var updated_at: String?
        public var email: String?

        public init(
            identity_id: String?, id: String, user_id: String?, identity_data: [String: JSONValue]?, provider: String?,
            last_sign_in_at: String?, created_at: String?, updated_at: String?, email: String?
        ) {
            self.identity_id = identity_id
            self.id = id
            self.user_id = user_id
            self.identity_data = identity_data
            self.provider = provider
            self.last_sign_in_at = last_sign_in_at
            self.created_at = created_at
            self.updated_at = updated_at
            self.email = email
        }
    }

    public var id: String
    public var aud: String?
    public var role: String?
    public var email: String?
    public var email_confirmed_at: String?
    public var phone: String?
    public var phone_confirmed_at: String?
    public var confirmation_sent_at: String?
    public var confirmed_at: String?
    public var recovery_sent_at: String?
    public var new_email: String?
    public var email_change_sent_at: String?
    /// A phone number waiting for its SMS code before it replaces `phone`.
    public var new_phone: String?
    public var phone_change_sent_at: String?
    public var last_sign_in_at: String?
    public var app_metadata: [String: JSONValue]?
    public var user_metadata: [String: JSONValue]?
    public var identities: [Identity]?
    public var banned_until: String?
    public var created_at: String?
    public var updated_at: String?
    public var is_anonymous: Bool?
    public var invited_at: String?
    /// The user's multi-factor authentication factors; absent when there are none, as GoTrue.
    public var factors: [FactorResponse]?

    /// A user with only its id; set the other fields as needed.
    public init(id: String) {
        self.id = id
    }

    /// Reads `id` (required) and every other field it can: a field of an unexpected type reads
    /// as absent rather than failing the whole user, as a newer server may change one.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        func field<T: Decodable>(_ key: CodingKeys) -> T? { (try? c.decodeIfPresent(T.self, forKey: key)) ?? nil }
        aud = field(.aud)
        role = field(.role)
        email = field(.email)
        email_confirmed_at = field(.email_confirmed_at)
        phone = field(.phone)
        phone_confirmed_at = field(.phone_confirmed_at)
        confirmation_sent_at = field(.confirmation_sent_at)
        confirmed_at = field(.confirmed_at)
        recovery_sent_at = field(.recovery_sent_at)
        new_email = field(.new_email)
        email_change_sent_at = field(.email_change_sent_at)
        new_phone = field(.new_phone)
        phone_change_sent_at = field(.phone_change_sent_at)
        last_sign_in_at = field(.last_sign_in_at)
        app_metadata = field(.app_metadata)
        user_metadata = field(.user_metadata)
        identities = field(.identities)
        banned_until = field(.banned_until)
        created_at = field(.created_at)
        updated_at = field(.updated_at)
        is_anonymous = field(.is_anonymous)
        invited_at = field(.invited_at)
        factors = field(.factors)
    }
}

/// GoTrue's session object, as `/token`, `/verify` and `/signup` (with autoconfirm) return it.
///
/// Its tokens are secrets: `description` and `dump(_:)` never show them.
public struct SessionResponse: Codable, Sendable, Hashable {
    public var access_token: String
    public var token_type: String?
    /// Lifetime of the access token in seconds.
    public var expires_in: Int?
    /// Expiry of the access token in seconds since 1970 (the server's clock).
    public var expires_at: Int?
    public var refresh_token: String
    public var user: UserResponse
    /// After a password sign-in, when the password no longer meets the server's rules (GoTrue's
    /// `weak_password`): the app may ask the user to choose a new one.
    public var weak_password: WeakPasswordNotice?

    /// Why a password is weak: GoTrue's reasons (`length`, `characters`, `pwned`) and its message.
    public struct WeakPasswordNotice: Codable, Sendable, Hashable {
        public var message: String?
        public var reasons: [String]?

        public init(message: String?, reasons: [String]?) {
            self.message = message
            self.reasons = reasons
        }
    }

    /// Reads the tokens and the user (required) and the lifetimes, written as integers by
    /// GoTrue and tolerated as fractional numbers from other servers.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        access_token = try c.decode(String.self, forKey: .access_token)
        refresh_token = try c.decode(String.self, forKey: .refresh_token)
        user = try c.decode(UserResponse.self, forKey: .user)
        token_type = (try? c.decodeIfPresent(String.self, forKey: .token_type)) ?? nil
        func seconds(_ key: CodingKeys) -> Int? {
            if let value = try? c.decodeIfPresent(Int.self, forKey: key) { return value }
            if let value = try? c.decodeIfPresent(Double.self, forKey: key), value.isFinite, abs(value) < 1e15 { return Int(value) }
            return nil
        }
        expires_in = seconds(.expires_in)
        expires_at = seconds(.expires_at)
        weak_password = (try? c.decodeIfPresent(WeakPasswordNotice.self, forKey: .weak_password)) ?? nil
    }

    public init(
        access_token: String, token_type: String? = "bearer", expires_in: Int?, expires_at: Int?, refresh_token: String, user: UserResponse,
        weak_password: WeakPasswordNotice? = nil
    ) {
        self.weak_password = weak_password
        self.access_token = access_token
        self.token_type = token_type
        self.expires_in = expires_in
        self.expires_at = expires_at
        self.refresh_token = refresh_token
        self.user = user
    }

    /// The session as URL-fragment parameters (`access_token=…&expires_at=…&type=…`), for the
    /// redirect that follows an email link.
    public func fragment(type: String) -> String {
        var components = URLComponents()
        components.queryItems = [
            URLQueryItem(name: "access_token", value: access_token),
            URLQueryItem(name: "expires_at", value: expires_at.map(String.init)),
            URLQueryItem(name: "expires_in", value: expires_in.map(String.init)),
            URLQueryItem(name: "refresh_token", value: refresh_token),
            URLQueryItem(name: "token_type", value: token_type ?? "bearer"),
            URLQueryItem(name: "type", value: type),
        ]
        return components.percentEncodedQuery ?? ""
    }
}

extension SessionResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "SessionResponse(user: \(user.id), access_token: <redacted>, refresh_token: <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["user": user.id, "access_token": "<redacted>", "refresh_token": "<redacted>"], displayStyle: .struct)
    }
}

/// A public profile (`/profiles/{id}`): what any signed-in user may read about another.
public struct ProfileResponse: Codable, Sendable, Hashable {
    public var id: String
    public var display_name: String?
    public var avatar_url: String?

    public init(id: String, display_name: String?, avatar_url: String?) {
        self.id = id
        self.display_name = display_name
        self.avatar_url = avatar_url
    }
}

/// What a server publishes about itself at `GET /settings`.
///
/// `password_min_length` is Latchkey's addition (GoTrue and Supabase do not send it); every
/// field is optional when decoding, as other servers send more or fewer.
public struct SettingsResponse: Codable, Sendable, Hashable {
    /// Which sign-in providers are on (`email`, `phone`, `anonymous_users`...).
    public var external: [String: Bool]?
    public var disable_signup: Bool?
    public var mailer_autoconfirm: Bool?
    public var phone_autoconfirm: Bool?
    public var sms_provider: String?
    public var saml_enabled: Bool?
    public var password_min_length: Int?
    /// Whether users may register passkeys and sign in with them.
    public var passkeys_enabled: Bool?

    public init(
        external: [String: Bool]? = nil, disable_signup: Bool? = nil, mailer_autoconfirm: Bool? = nil, phone_autoconfirm: Bool? = nil,
        sms_provider: String? = nil, saml_enabled: Bool? = nil, password_min_length: Int? = nil, passkeys_enabled: Bool? = nil
    ) {
        self.passkeys_enabled = passkeys_enabled
        self.external = external
        self.disable_signup = disable_signup
        self.mailer_autoconfirm = mailer_autoconfirm
        self.phone_autoconfirm = phone_autoconfirm
        self.sms_provider = sms_provider
        self.saml_enabled = saml_enabled
        self.password_min_length = password_min_length
    }
}

/// A page of users, as `GET /admin/users` returns it (the total is in `X-Total-Count`).
public struct UserListResponse: Codable, Sendable, Hashable {
    public var users: [UserResponse]
    public var aud: String?

    public init(users: [UserResponse], aud: String? = "authenticated") {
        self.users = users
        self.aud = aud
    }
}

/// An audit-log entry, as `GET /admin/audit` returns it.
public struct AuditEntryResponse: Codable, Sendable, Hashable {
    /// What happened and who did it.
    public struct Payload: Codable, Sendable, Hashable {
        /// `login`, `logout`, `token_refreshed`, `user_signedup`…
        public var action: String
        public var actor_id: String
        public var actor_username: String
        public var actor_via_sso: Bool
        /// `account`, `token` or `user`.
        public var log_type: String
        public var traits: [String: JSONValue]

        public init(
            action: String, actor_id: String, actor_username: String, actor_via_sso: Bool = false, log_type: String, traits: [String: JSONValue]
        ) {
            self.action = action
            self.actor_id = actor_id
            self.actor_username = actor_username
            self.actor_via_sso = actor_via_sso
            self.log_type = log_type
            self.traits = traits
        }
    }

    public var id: String
    public var payload: Payload
    public var created_at: String
    public var ip_address: String

    public init(id: String, payload: Payload, created_at: String, ip_address: String) {
        self.id = id
        self.payload = payload
        self.created_at = created_at
        self.ip_address = ip_address
    }
}

/// `POST /admin/generate_link`: the user's fields, and beside them the link, the emailed code
/// and the link's token (what `/verify` takes as `token_hash`), as GoTrue answers it. Nothing
/// is mailed: the caller delivers the link itself.
public struct GenerateLinkResponse: Codable, Sendable, Hashable {
    public var user: UserResponse
    public var action_link: String
    public var email_otp: String
    public var hashed_token: String
    public var verification_type: String
    public var redirect_to: String

    public init(user: UserResponse, action_link: String, email_otp: String, hashed_token: String, verification_type: String, redirect_to: String) {
        self.user = user
        self.action_link = action_link
        self.email_otp = email_otp
        self.hashed_token = hashed_token
        self.verification_type = verification_type
        self.redirect_to = redirect_to
    }

    private enum CodingKeys: String, CodingKey {
        case action_link, email_otp, hashed_token, verification_type, redirect_to
    }

    public init(from decoder: any Decoder) throws {
        user = try UserResponse(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        action_link = try container.decode(String.self, forKey: .action_link)
        email_otp = try container.decode(String.self, forKey: .email_otp)
        hashed_token = try container.decode(String.self, forKey: .hashed_token)
        verification_type = try container.decode(String.self, forKey: .verification_type)
        redirect_to = try container.decode(String.self, forKey: .redirect_to)
    }

    /// The user's fields and the link's, in one flat object.
    public func encode(to encoder: any Encoder) throws {
        try user.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(action_link, forKey: .action_link)
        try container.encode(email_otp, forKey: .email_otp)
        try container.encode(hashed_token, forKey: .hashed_token)
        try container.encode(verification_type, forKey: .verification_type)
        try container.encode(redirect_to, forKey: .redirect_to)
    }
}

extension GenerateLinkResponse: CustomStringConvertible, CustomDebugStringConvertible {
    public var description: String { "GenerateLinkResponse(user: \(user.id), verification_type: \(verification_type), link and code: <redacted>)" }
    public var debugDescription: String { description }
}
