import Foundation

/// Multi-factor authentication on the wire: GoTrue's `/factors` endpoints and the factors of a
/// user object. Field names are GoTrue's.

/// A factor of a user, as the user object's `factors` array lists it.
///
/// `status` is `verified` once a code from it was accepted, `unverified` while its enrollment
/// is unfinished. Only `id` is required when decoding; a field of an unexpected type reads as
/// absent.
public struct FactorResponse: Codable, Sendable, Hashable {
    public var id: String
    public var friendly_name: String?
    /// `totp`, `phone` or `webauthn`.
    public var factor_type: String?
    /// `verified` or `unverified`.
    public var status: String?
    public var created_at: String?
    public var updated_at: String?
    public var last_challenged_at: String?

    public init(
        id: String, friendly_name: String? = nil, factor_type: String? = nil, status: String? = nil, created_at: String? = nil,
        updated_at: String? = nil, last_challenged_at: String? = nil
    ) {
        self.id = id
        self.friendly_name = friendly_name
        self.factor_type = factor_type
        self.status = status
        self.created_at = created_at
        self.updated_at = updated_at
        self.last_challenged_at = last_challenged_at
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        func field(_ key: CodingKeys) -> String? { (try? c.decodeIfPresent(String.self, forKey: key)) ?? nil }
        friendly_name = field(.friendly_name)
        factor_type = field(.factor_type)
        status = field(.status)
        created_at = field(.created_at)
        updated_at = field(.updated_at)
        last_challenged_at = field(.last_challenged_at)
    }
}

/// `POST /factors`: enrolls a factor. For TOTP, `issuer` names the service in the
/// authenticator app (the server's host when absent).
public struct EnrollFactorBody: Codable, Sendable, Hashable {
    /// `totp` (or `phone`, `webauthn` on servers that have them).
    public var factor_type: String?
    public var friendly_name: String?
    public var issuer: String?
    public var phone: String?

    public init(factor_type: String? = nil, friendly_name: String? = nil, issuer: String? = nil, phone: String? = nil) {
        self.factor_type = factor_type
        self.friendly_name = friendly_name
        self.issuer = issuer
        self.phone = phone
    }
}

/// The answer to `POST /factors`: the new, unverified factor and, for TOTP, what the
/// authenticator app needs. The `totp` object carries the shared secret: printing or dumping
/// the response shows `<redacted>` in its place.
public struct EnrollFactorResponse: Codable, Sendable, Hashable {
    /// What an authenticator app needs to produce codes for a TOTP factor.
    public struct TOTP: Codable, Sendable, Hashable {
        /// The `otpauth://` URI as a QR code, an SVG image (GoTrue sends the SVG text).
        public var qr_code: String?
        /// The shared secret, Base32. Secret.
        public var secret: String?
        /// The `otpauth://totp/…` URI (it contains the secret).
        public var uri: String?

        public init(qr_code: String? = nil, secret: String? = nil, uri: String? = nil) {
            self.qr_code = qr_code
            self.secret = secret
            self.uri = uri
        }
    }

    public var id: String
    /// `totp`, `phone` or `webauthn`.
    public var type: String
    public var friendly_name: String?
    public var totp: TOTP?
    public var phone: String?

    public init(id: String, type: String, friendly_name: String? = nil, totp: TOTP? = nil, phone: String? = nil) {
        self.id = id
        self.type = type
        self.friendly_name = friendly_name
        self.totp = totp
        self.phone = phone
    }
}

/// `POST /factors/{id}/challenge`: optional; `channel` (`sms` or `whatsapp`) for phone factors.
public struct ChallengeFactorBody: Codable, Sendable, Hashable {
    public var channel: String?

    public init(channel: String? = nil) {
        self.channel = channel
    }
}

/// The answer to `POST /factors/{id}/challenge`: the challenge to verify a code against.
public struct ChallengeFactorResponse: Codable, Sendable, Hashable {
    public var id: String
    /// The factor's type.
    public var type: String?
    /// When the challenge expires, in seconds since 1970.
    public var expires_at: Int?

    public init(id: String, type: String? = nil, expires_at: Int? = nil) {
        self.id = id
        self.type = type
        self.expires_at = expires_at
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        type = (try? c.decodeIfPresent(String.self, forKey: .type)) ?? nil
        if let seconds = try? c.decodeIfPresent(Int.self, forKey: .expires_at) {
            expires_at = seconds
        } else if let seconds = try? c.decodeIfPresent(Double.self, forKey: .expires_at), seconds.isFinite, abs(seconds) < 1e15 {
            expires_at = Int(seconds)
        } else {
            expires_at = nil
        }
    }
}

/// `POST /factors/{id}/verify`: the code from the authenticator app, for a challenge. The
/// answer is a ``SessionResponse`` at `aal2`. Printing or dumping it shows `<redacted>` in place
/// of the code.
public struct VerifyFactorBody: Codable, Sendable, Hashable {
    public var challenge_id: String?
    public var code: String?

    public init(challenge_id: String? = nil, code: String? = nil) {
        self.challenge_id = challenge_id
        self.code = code
    }
}

/// The answer to `DELETE /factors/{id}`.
public struct UnenrollFactorResponse: Codable, Sendable, Hashable {
    public var id: String

    public init(id: String) {
        self.id = id
    }
}

extension EnrollFactorResponse: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "EnrollFactorResponse(id: \(id), type: \(type), friendly_name: \(friendly_name ?? "nil"), totp: \(totp == nil ? "nil" : "<redacted>"))"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(self, children: ["id": id, "type": type, "friendly_name": friendly_name as Any, "totp": (totp == nil ? "nil" : "<redacted>")])
    }
}

extension EnrollFactorResponse.TOTP: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "TOTP(<redacted>)" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["secret": "<redacted>", "uri": "<redacted>", "qr_code": "<redacted>"]) }
}

extension VerifyFactorBody: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String { "VerifyFactorBody(challenge_id: \(challenge_id ?? "nil"), code: \(code == nil ? "nil" : "<redacted>"))" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["challenge_id": challenge_id as Any, "code": (code == nil ? "nil" : "<redacted>")]) }
}
