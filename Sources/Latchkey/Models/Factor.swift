import Foundation
internal import LatchkeyWire

/// A second factor of an account: an authenticator app (TOTP), a phone that receives codes by
/// text message, or a security key or device (WebAuthn), as the user object lists it.
public struct Factor: Sendable, Hashable, Codable, Identifiable {
    /// Where a factor's enrollment stands.
    public enum Status: String, Sendable, Hashable, Codable {
        /// A code from it was accepted: it protects the account.
        case verified
        /// Enrolled but never confirmed with a code; it does not protect the account, and the
        /// server deletes it after a while.
        case unverified
    }

    /// The factor's identifier (a UUID string on GoTrue).
    public var id: String
    /// The name the user gave it, e.g. "Phone"; `nil` when none.
    public var friendlyName: String?
    /// `totp` for an authenticator app, `phone` for codes by text message, `webauthn` for a
    /// security key or device.
    public var factorType: String
    /// Verified or not; a status Latchkey does not know reads as ``Status/unverified``.
    public var status: Status
    /// A phone factor's number, E.164 as the server keeps it (`15555550100`); `nil` for other
    /// kinds.
    public var phone: String?
    public var createdAt: Date?
    public var updatedAt: Date?

    /// Whether this is a verified authenticator-app factor.
    public var isVerifiedTOTP: Bool { factorType == "totp" && status == .verified }
    /// A verified WebAuthn factor (a security key or device): ``AuthMFA/verifyWebAuthn(factorID:)``.
    public var isVerifiedWebAuthn: Bool { factorType == "webauthn" && status == .verified }
    /// A verified phone factor: ``AuthMFA/challenge(factorID:channel:)`` texts it a code.
    public var isVerifiedPhone: Bool { factorType == "phone" && status == .verified }

    public init(
        id: String, friendlyName: String? = nil, factorType: String = "totp", status: Status, phone: String? = nil, createdAt: Date? = nil,
        updatedAt: Date? = nil
    ) {
        self.id = id
        self.friendlyName = friendlyName
        self.factorType = factorType
        self.status = status
        self.phone = phone
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, status, phone
        case friendlyName = "friendly_name"
        case factorType = "factor_type"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    /// Reads Latchkey's stored form (dates in seconds since 1970) and GoTrue's (RFC 3339).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        id = try c.decode(String.self, forKey: .id)
        friendlyName = c.nonEmptyString(forKey: .friendlyName)
        factorType = ((try? c.decodeIfPresent(String.self, forKey: .factorType)) ?? nil) ?? "totp"
        status = ((try? c.decodeIfPresent(String.self, forKey: .status)) ?? nil).flatMap(Status.init(rawValue:)) ?? .unverified
        phone = c.nonEmptyString(forKey: .phone)
        createdAt = c.modelDate(forKey: .createdAt, storedForm: decoder.readsStoredForm)
        updatedAt = c.modelDate(forKey: .updatedAt, storedForm: decoder.readsStoredForm)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(id, forKey: .id)
        try c.encodeIfPresent(friendlyName, forKey: .friendlyName)
        try c.encode(factorType, forKey: .factorType)
        try c.encode(status, forKey: .status)
        try c.encodeIfPresent(phone, forKey: .phone)
        try c.encodeModelDate(createdAt, forKey: .createdAt)
        try c.encodeModelDate(updatedAt, forKey: .updatedAt)
    }
}

/// A factor just enrolled with ``AuthMFA/enrollTOTP(friendlyName:issuer:)``: what the
/// user adds to an authenticator app. Confirm it with a first code
/// (``AuthMFA/challengeAndVerify(factorID:code:)``) to make it protect the account.
///
/// The secret, the URI and the QR code carry the shared secret: show them to the user once and
/// do not store or log them. Printing or dumping an enrollment shows `<redacted>` in their place.
public struct TOTPEnrollment: Sendable, Hashable {
    /// The new factor's identifier.
    public let factorID: String
    /// The name given at enrollment.
    public let friendlyName: String?
    /// The shared secret, Base32, for typing into an authenticator app by hand.
    public let secret: String
    /// The `otpauth://totp/…` URI, to show as a QR code or open on the same device.
    public let uri: String
    /// The URI as a QR code, an SVG image, as the server rendered it (may be empty).
    public let qrCodeSVG: String

    public init(factorID: String, friendlyName: String?, secret: String, uri: String, qrCodeSVG: String) {
        self.factorID = factorID
        self.friendlyName = friendlyName
        self.secret = secret
        self.uri = uri
        self.qrCodeSVG = qrCodeSVG
    }
}

extension TOTPEnrollment: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public var description: String {
        "TOTPEnrollment(factorID: \(factorID), friendlyName: \(friendlyName ?? "nil"), secret: <redacted>, uri: <redacted>)"
    }
    public var debugDescription: String { description }
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "factorID": factorID, "friendlyName": friendlyName as Any, "secret": "<redacted>", "uri": "<redacted>",
                "qrCodeSVG": "<redacted>",
            ], displayStyle: .struct)
    }
}

/// A challenge to answer with a code (``AuthMFA/verify(factorID:challengeID:code:)``): the
/// authenticator app's, or for a phone factor the one the server texted when the challenge was
/// made.
public struct FactorChallenge: Sendable, Hashable, Identifiable {
    /// The challenge's identifier.
    public let id: String
    /// The factor it belongs to.
    public let factorID: String
    /// When it expires (the server's clock); `nil` when the server did not say.
    public let expiresAt: Date?
    /// For a WebAuthn factor, what the authenticator must do; `nil` for TOTP and phone factors.
    public let ceremony: FactorCeremony?

    public init(id: String, factorID: String, expiresAt: Date?, ceremony: FactorCeremony? = nil) {
        self.id = id
        self.factorID = factorID
        self.expiresAt = expiresAt
        self.ceremony = ceremony
    }
}

/// What a WebAuthn factor's challenge asks of the authenticator.
public enum FactorCeremony: Sendable, Hashable {
    /// Create the factor's credential: the factor is not verified yet.
    case create(PasskeyCreationOptions)
    /// Sign with the factor's credential (only it is allowed): the factor is verified.
    case request(PasskeyRequestOptions)
}

/// A WebAuthn factor's answer to its challenge's ceremony.
public enum WebAuthnFactorResponse: Sendable, Hashable {
    /// The new credential, answering ``FactorCeremony/create(_:)``.
    case registration(PasskeyRegistration)
    /// The signature, answering ``FactorCeremony/request(_:)``.
    case assertion(PasskeyAssertion)
}
