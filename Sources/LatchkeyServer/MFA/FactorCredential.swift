import Foundation
import LatchkeyWire

/// The WebAuthn credential of a `webauthn` factor: what verifying its assertions needs.
///
/// Stored as JSON in the factor's row (binary values as base64url). Public data only: the
/// private key never leaves the authenticator.
struct FactorCredential: Sendable, Hashable, Codable {
    /// The credential id the authenticator chose.
    var credentialID: [UInt8]
    /// The credential public key as COSE_Key bytes.
    var publicKey: [UInt8]
    /// What the registration's attestation proved (`none`, `self`, `basic`).
    var attestationType: String
    /// The authenticator model, when it disclosed one.
    var aaguid: UUID?
    /// The last signature counter accepted (0 for authenticators that keep none).
    var signCount: UInt32
    /// BE: the credential may be synced between devices.
    var backupEligible: Bool
    /// BS: the credential was backed up at its last use.
    var backedUp: Bool
    /// The transports the browser reported at registration: hints, not verified.
    var transports: [String]

    init(
        credentialID: [UInt8], publicKey: [UInt8], attestationType: String, aaguid: UUID?, signCount: UInt32, backupEligible: Bool,
        backedUp: Bool, transports: [String]
    ) {
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.attestationType = attestationType
        self.aaguid = aaguid
        self.signCount = signCount
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.transports = transports
    }

    private enum CodingKeys: String, CodingKey {
        case credentialID = "credential_id"
        case publicKey = "public_key"
        case attestationType = "attestation_type"
        case aaguid
        case signCount = "sign_count"
        case backupEligible = "backup_eligible"
        case backedUp = "backed_up"
        case transports
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        guard let id = Base64URL.decode(try c.decode(String.self, forKey: .credentialID)),
            let key = Base64URL.decode(try c.decode(String.self, forKey: .publicKey))
        else { throw DecodingError.dataCorruptedError(forKey: .credentialID, in: c, debugDescription: "not base64url") }
        credentialID = Array(id)
        publicKey = Array(key)
        attestationType = try c.decode(String.self, forKey: .attestationType)
        aaguid = try c.decodeIfPresent(UUID.self, forKey: .aaguid)
        signCount = try c.decode(UInt32.self, forKey: .signCount)
        backupEligible = try c.decode(Bool.self, forKey: .backupEligible)
        backedUp = try c.decode(Bool.self, forKey: .backedUp)
        transports = try c.decodeIfPresent([String].self, forKey: .transports) ?? []
    }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(Base64URL.encode(credentialID), forKey: .credentialID)
        try c.encode(Base64URL.encode(publicKey), forKey: .publicKey)
        try c.encode(attestationType, forKey: .attestationType)
        try c.encodeIfPresent(aaguid, forKey: .aaguid)
        try c.encode(signCount, forKey: .signCount)
        try c.encode(backupEligible, forKey: .backupEligible)
        try c.encode(backedUp, forKey: .backedUp)
        try c.encode(transports, forKey: .transports)
    }

    /// The stored form: JSON text.
    var storedText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// The credential of a stored row, or `StoreError.unreadableRow`.
    static func stored(_ text: String?) throws -> FactorCredential? {
        guard let text, !text.isEmpty else { return nil }
        do {
            return try JSONDecoder().decode(FactorCredential.self, from: Data(text.utf8))
        } catch {
            throw StoreError.unreadableRow("mfa_factors.web_authn_credential holds no credential")
        }
    }
}

/// The WebAuthn side of a `webauthn` factor's challenge: which ceremony it opened and the
/// random challenge the authenticator must sign.
struct FactorWebAuthnChallenge: Sendable, Hashable {
    enum Ceremony: String, Sendable, Hashable {
        /// Registering the factor's credential (`navigator.credentials.create`): an unverified factor.
        case create
        /// Proving possession of it (`navigator.credentials.get`): a verified factor.
        case request
    }

    var ceremony: Ceremony
    var challenge: [UInt8]

    init(ceremony: Ceremony, challenge: [UInt8]) {
        self.ceremony = ceremony
        self.challenge = challenge
    }

    /// The row's two columns, or `nil` for a TOTP challenge.
    static func stored(ceremony: String?, challenge: String?) throws -> FactorWebAuthnChallenge? {
        guard let ceremony, let challenge else { return nil }
        guard let kind = Ceremony(rawValue: ceremony), let bytes = Base64URL.decode(challenge) else {
            throw StoreError.unreadableRow("mfa_challenges holds an unreadable WebAuthn challenge")
        }
        return FactorWebAuthnChallenge(ceremony: kind, challenge: Array(bytes))
    }
}
