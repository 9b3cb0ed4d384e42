import Foundation

/// A multi-factor authentication factor of a user: a TOTP authenticator, a phone number that
/// gets codes by SMS, or a WebAuthn credential (a security key, a phone's platform
/// authenticator).
///
/// A factor starts `unverified` and becomes `verified` with its first correct code (TOTP,
/// phone) or its registration ceremony (WebAuthn); only then does it raise sessions to `aal2`. A TOTP
/// secret is stored sealed (``FactorSecretBox``), never in plain text; a WebAuthn factor holds
/// only its credential's public key.
package struct FactorRecord: Sendable, Hashable {
    enum Status: String, Sendable, Hashable {
        case unverified
        case verified
    }

    /// GoTrue's factor type for authenticator apps.
    static let totpType = "totp"
    /// GoTrue's factor type for WebAuthn credentials.
    static let webAuthnType = "webauthn"
    /// GoTrue's factor type for phone numbers that get codes by SMS or WhatsApp.
    static let phoneType = "phone"

    var id: UUID
    var userID: UUID
    var friendlyName: String
    var factorType: String
    var status: Status
    /// The TOTP secret, sealed by ``FactorSecretBox`` (`v1:…`); empty for WebAuthn and phone.
    var sealedSecret: String
    var createdAt: Date
    var updatedAt: Date
    var lastChallengedAt: Date?
    /// The last TOTP time step accepted: a code of this step or an earlier one is refused, so a
    /// code works once.
    var lastUsedStep: Int64?
    /// A verified WebAuthn factor's credential (`nil` until its registration is verified).
    var webAuthnCredential: FactorCredential?
    /// A phone factor's number, E.164 digits without the `+`; `nil` for the other types.
    var phone: String?

    init(
        id: UUID = UUID(), userID: UUID, friendlyName: String, factorType: String = FactorRecord.totpType, status: Status = .unverified,
        sealedSecret: String, createdAt: Date, updatedAt: Date, lastChallengedAt: Date? = nil, lastUsedStep: Int64? = nil,
        webAuthnCredential: FactorCredential? = nil, phone: String? = nil
    ) {
        self.id = id
        self.userID = userID
        self.friendlyName = friendlyName
        self.factorType = factorType
        self.status = status
        self.sealedSecret = sealedSecret
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastChallengedAt = lastChallengedAt
        self.lastUsedStep = lastUsedStep
        self.webAuthnCredential = webAuthnCredential
        self.phone = phone
    }

    var isVerified: Bool { status == .verified }
}

/// A challenge of a factor: what a code (or a WebAuthn response) is verified against, from the
/// address that asked for it, until it expires or is spent.
package struct ChallengeRecord: Sendable, Hashable {
    var id: UUID
    var factorID: UUID
    var createdAt: Date
    var verifiedAt: Date?
    var ipAddress: String
    /// A WebAuthn factor's ceremony and random challenge; `nil` for TOTP.
    var webAuthn: FactorWebAuthnChallenge?
    /// A phone factor's challenge: the hash of the code sent (``OpaqueTokens/codeHash(_:address:)``
    /// bound to the challenge's id), never the code; `nil` for the other types.
    var codeHash: String?

    init(
        id: UUID = UUID(), factorID: UUID, createdAt: Date, verifiedAt: Date? = nil, ipAddress: String, webAuthn: FactorWebAuthnChallenge? = nil,
        codeHash: String? = nil
    ) {
        self.id = id
        self.factorID = factorID
        self.createdAt = createdAt
        self.verifiedAt = verifiedAt
        self.ipAddress = ipAddress
        self.webAuthn = webAuthn
        self.codeHash = codeHash
    }
}

extension Array where Element == FactorRecord {
    /// Whether one of the factors is verified: the user can reach `aal2`, and GoTrue then asks
    /// for it before sensitive changes (GoTrue's `HasMFAEnabled`).
    var hasVerifiedFactor: Bool { contains(where: \.isVerified) }
}
