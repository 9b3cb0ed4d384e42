import Foundation
import LatchkeyWire

/// A passkey: a WebAuthn credential registered to an account, with what signing in with it
/// needs (its public key and signature counter) and what its owner sees (name, times).
package struct PasskeyRecord: Sendable, Hashable {
    var id: UUID
    var userID: UUID
    /// The credential id the authenticator chose (at most 1023 bytes), unique across accounts.
    var credentialID: [UInt8]
    /// The credential public key as COSE_Key bytes, as the authenticator encoded it.
    var publicKey: [UInt8]
    /// What the registration's attestation proved (`none`, `self`, `basic`).
    var attestationType: String
    /// The authenticator model, when it disclosed one.
    var aaguid: UUID?
    /// The last signature counter accepted (0 for authenticators that keep none).
    var signCount: UInt32
    /// The transports the browser reported at registration: hints, not verified.
    var transports: [String]
    /// BE: the credential may be synced between devices (it never changes).
    var backupEligible: Bool
    /// BS: the credential was backed up at its last use.
    var backedUp: Bool
    var friendlyName: String
    var createdAt: Date
    var updatedAt: Date
    var lastUsedAt: Date?

    init(
        id: UUID = UUID(), userID: UUID, credentialID: [UInt8], publicKey: [UInt8], attestationType: String, aaguid: UUID?,
        signCount: UInt32, transports: [String], backupEligible: Bool, backedUp: Bool, friendlyName: String, createdAt: Date,
        updatedAt: Date, lastUsedAt: Date? = nil
    ) {
        self.id = id
        self.userID = userID
        self.credentialID = credentialID
        self.publicKey = publicKey
        self.attestationType = attestationType
        self.aaguid = aaguid
        self.signCount = signCount
        self.transports = transports
        self.backupEligible = backupEligible
        self.backedUp = backedUp
        self.friendlyName = friendlyName
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.lastUsedAt = lastUsedAt
    }

    /// The credential id as stored and looked up: base64url without padding.
    var credentialKey: String { Base64URL.encode(credentialID) }
}
