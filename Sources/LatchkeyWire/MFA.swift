import Foundation

/// A multi-factor authentication factor, as GoTrue lists it in the user object (`factors`) and
/// answers `GET /admin/users/{id}/factors`.
///
/// Never carries the factor's secret. Timestamps are ``WireDate`` strings.
public struct FactorResponse: Codable, Sendable, Hashable {
    public var id: String
    /// `totp` or `webauthn` (GoTrue also knows `phone`).
    public var factor_type: String
    /// `unverified` until a first code (or the WebAuthn registration) was verified, then `verified`.
    public var status: String
    public var friendly_name: String?
    public var phone: String?
    public var created_at: String?
    public var updated_at: String?
    public var last_challenged_at: String?

    public init(
        id: String, factor_type: String, status: String, friendly_name: String?, phone: String? = nil, created_at: String?,
        updated_at: String?, last_challenged_at: String?
    ) {
        self.id = id
        self.factor_type = factor_type
        self.status = status
        self.friendly_name = friendly_name
        self.phone = phone
        self.created_at = created_at
        self.updated_at = updated_at
        self.last_challenged_at = last_challenged_at
    }

    /// `friendly_name` is left out when empty and `phone` and `last_challenged_at` are written
    /// as `null` when absent, as GoTrue writes them.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encodeIfPresent(created_at, forKey: .created_at)
        try c.encodeIfPresent(updated_at, forKey: .updated_at)
        try c.encode(status, forKey: .status)
        if let friendly_name, !friendly_name.isEmpty { try c.encode(friendly_name, forKey: .friendly_name) }
        try c.encode(factor_type, forKey: .factor_type)
        try c.encode(phone, forKey: .phone)
        try c.encode(last_challenged_at, forKey: .last_challenged_at)
    }
}

/// `POST /factors`: the factor just enrolled (unverified) and, for TOTP, what an authenticator
/// app needs. The secret and URI are shown once, here; treat them as passwords.
public struct EnrollFactorResponse: Codable, Sendable, Hashable {
    /// What an authenticator app needs to produce codes.
    public struct TOTP: Codable, Sendable, Hashable {
        /// An SVG image of a QR code holding ``uri``, as GoTrue sends it: the SVG document itself
        /// (Supabase clients prefix `data:image/svg+xml;utf-8,` to make an image URL). Empty when
        /// the server could not draw one.
        public var qr_code: String
        /// The shared secret, base32 without padding.
        public var secret: String
        /// `otpauth://totp/ISSUER:ACCOUNT?algorithm=SHA1&digits=6&issuer=ISSUER&period=30&secret=…`.
        public var uri: String

        public init(qr_code: String, secret: String, uri: String) {
            self.qr_code = qr_code
            self.secret = secret
            self.uri = uri
        }
    }

    public var id: String
    /// `totp`, `phone` or `webauthn`.
    public var type: String
    public var friendly_name: String
    /// For TOTP only.
    public var totp: TOTP?
    /// For a phone factor: the number as the request gave it.
    public var phone: String?

    public init(id: String, type: String, friendly_name: String, totp: TOTP?, phone: String? = nil) {
        self.id = id
        self.type = type
        self.friendly_name = friendly_name
        self.totp = totp
        self.phone = phone
    }
}

extension EnrollFactorResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "EnrollFactorResponse(id: \(id), type: \(type), totp: <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["id": id, "type": type, "friendly_name": friendly_name, "totp": "<redacted>"], displayStyle: .struct)
    }
}

/// `POST /factors/{id}/challenge`: the challenge a code (or, for WebAuthn, the authenticator's
/// response) is verified against, until `expires_at` (seconds since 1970).
public struct ChallengeFactorResponse: Codable, Sendable, Hashable {
    public var id: String
    /// The factor's type (`totp`, `webauthn`).
    public var type: String
    public var expires_at: Int
    /// For a WebAuthn factor: the ceremony to run in the browser or app.
    public var webauthn: WebAuthnFactorChallenge?

    public init(id: String, type: String, expires_at: Int, webauthn: WebAuthnFactorChallenge? = nil) {
        self.id = id
        self.type = type
        self.expires_at = expires_at
        self.webauthn = webauthn
    }
}

/// The ceremony a WebAuthn factor's challenge opens, as GoTrue answers it: `create` (register
/// the factor's credential: an unverified factor) with creation options, or `request` (prove
/// possession: a verified factor) with request options. `credential_options` wraps them in
/// `publicKey`, as `navigator.credentials.create()` and `.get()` take them.
public struct WebAuthnFactorChallenge: Codable, Sendable, Hashable {
    public enum Options: Sendable, Hashable {
        case create(PublicKeyCredentialCreationOptionsJSON)
        case request(PublicKeyCredentialRequestOptionsJSON)
    }

    public var options: Options

    public init(_ options: Options) {
        self.options = options
    }

    /// `create` or `request`.
    public var type: String {
        switch options {
        case .create: "create"
        case .request: "request"
        }
    }

    private enum CodingKeys: String, CodingKey { case type, credential_options }
    private enum OptionKeys: String, CodingKey { case publicKey }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let options = try c.nestedContainer(keyedBy: OptionKeys.self, forKey: .credential_options)
        switch try c.decode(String.self, forKey: .type) {
        case "create": self.options = .create(try options.decode(PublicKeyCredentialCreationOptionsJSON.self, forKey: .publicKey))
        case "request": self.options = .request(try options.decode(PublicKeyCredentialRequestOptionsJSON.self, forKey: .publicKey))
        default: throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "type is neither create nor request")
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(type, forKey: .type)
        var options = c.nestedContainer(keyedBy: OptionKeys.self, forKey: .credential_options)
        switch self.options {
        case .create(let value): try options.encode(value, forKey: .publicKey)
        case .request(let value): try options.encode(value, forKey: .publicKey)
        }
    }
}

/// `DELETE /factors/{id}`: the id of the factor removed.
public struct UnenrollFactorResponse: Codable, Sendable, Hashable {
    public var id: String

    public init(id: String) {
        self.id = id
    }
}

/// `POST /factors`: enrolls a factor. `issuer` names the service in authenticator apps (default:
/// the host of the server's site URL).
public struct EnrollFactorBody: Codable, Sendable, Hashable {
    public var factor_type: String?
    public var friendly_name: String?
    public var issuer: String?
    public var phone: String?

    public init(factor_type: String? = "totp", friendly_name: String? = nil, issuer: String? = nil, phone: String? = nil) {
        self.factor_type = factor_type
        self.friendly_name = friendly_name
        self.issuer = issuer
        self.phone = phone
    }
}

/// `POST /factors/{id}/challenge`. `channel` applies to phone factors only.
public struct ChallengeFactorBody: Codable, Sendable, Hashable {
    public var channel: String?

    public init(channel: String? = nil) {
        self.channel = channel
    }
}

/// `POST /factors/{id}/verify`, for a challenge of the factor: the code an authenticator app
/// shows (TOTP), or the authenticator's response to the challenge's ceremony (WebAuthn).
public struct VerifyFactorBody: Codable, Sendable, Hashable {
    /// A WebAuthn factor's answer: the ceremony (`create` or `request`, the challenge's) and the
    /// `PublicKeyCredential` in its JSON form (base64url fields, as ``PasskeyCredential``).
    public struct WebAuthn: Codable, Sendable, Hashable {
        public var type: String?
        public var credential_response: JSONValue?

        public init(type: String?, credential_response: JSONValue?) {
            self.type = type
            self.credential_response = credential_response
        }
    }

    public var challenge_id: String?
    public var code: String?
    public var webauthn: WebAuthn?

    public init(challenge_id: String? = nil, code: String? = nil, webauthn: WebAuthn? = nil) {
        self.challenge_id = challenge_id
        self.code = code
        self.webauthn = webauthn
    }
}

extension VerifyFactorBody: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "VerifyFactorBody(challenge_id: \(challenge_id ?? "nil"), code: <redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["challenge_id": challenge_id as Any, "code": "<redacted>"], displayStyle: .struct)
    }
}

/// `PUT /admin/users/{id}/factors/{factor_id}`.
public struct AdminUpdateFactorBody: Codable, Sendable, Hashable {
    public var friendly_name: String?
    public var phone: String?

    public init(friendly_name: String? = nil, phone: String? = nil) {
        self.friendly_name = friendly_name
        self.phone = phone
    }
}
