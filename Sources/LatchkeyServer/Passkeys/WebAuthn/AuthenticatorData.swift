import Foundation

/// Authenticator data (WebAuthn Level 3 §6.1), parsed strictly.
///
/// The layout is rpIdHash (32 bytes), flags (1), signCount (4, big-endian), then attested
/// credential data when AT is set (§6.5.2: AAGUID 16 bytes, a 2-byte credential id length of at
/// most 1023, the id, and the credential's COSE key as one CBOR item), then the extensions as a
/// CBOR map when ED is set. Bytes nothing accounts for are refused, and so is a COSE key or
/// extensions map that is not well-formed CBOR.
struct AuthenticatorData: Sendable {
    /// The flags byte (§6.1): bit 0 UP, 2 UV, 3 BE, 4 BS, 6 AT, 7 ED.
    struct Flags: OptionSet, Hashable, Sendable {
        let rawValue: UInt8
        init(rawValue: UInt8) { self.rawValue = rawValue }

        /// User present.
        static let userPresent = Flags(rawValue: 0x01)
        /// User verified.
        static let userVerified = Flags(rawValue: 0x04)
        /// Backup eligible: the credential may be synced (a multi-device credential).
        static let backupEligible = Flags(rawValue: 0x08)
        /// Backed up: the credential is currently synced.
        static let backedUp = Flags(rawValue: 0x10)
        /// Attested credential data included.
        static let attestedCredentialData = Flags(rawValue: 0x40)
        /// Extension data included.
        static let extensionData = Flags(rawValue: 0x80)
    }

    /// The credential a registration's authenticator data carries (§6.5.2).
    struct AttestedCredential: Sendable {
        /// The authenticator model's AAGUID (all zeros when it does not say).
        let aaguid: UUID
        /// The credential id, 1023 bytes at most.
        let credentialID: [UInt8]
        /// The credential public key exactly as encoded (what is stored).
        let publicKeyBytes: [UInt8]
        /// The decoded key.
        let publicKey: COSEKey
    }

    /// The longest credential id §6.5.2 allows.
    static let maximumCredentialIDLength = 1023

    /// All of the authenticator data, as signed.
    let bytes: [UInt8]
    /// SHA-256 of the RP ID the credential is scoped to.
    let rpIDHash: [UInt8]
    /// The flags.
    let flags: Flags
    /// The signature counter (0 when the authenticator keeps none).
    let signCount: UInt32
    /// The attested credential data, when AT is set.
    let attestedCredential: AttestedCredential?
    /// The authenticator extension outputs, when ED is set (a CBOR map).
    let extensions: CBORValue?

    /// Parses `bytes`; throws ``WebAuthnError/malformedAuthenticatorData`` (or a more precise
    /// reason for the credential id and key) on anything that does not fit §6.1.
    init(_ bytes: [UInt8]) throws(WebAuthnError) {
        guard bytes.count >= 37 else { throw .malformedAuthenticatorData }
        self.bytes = bytes
        rpIDHash = Array(bytes[0..<32])
        flags = Flags(rawValue: bytes[32])
        signCount = bytes[33..<37].reduce(0) { $0 << 8 | UInt32($1) }
        var position = 37
        if flags.contains(.attestedCredentialData) {
            guard bytes.count - position >= 18 else { throw .malformedAuthenticatorData }
            let aaguidBytes = Array(bytes[position..<position + 16])
            let aaguid = aaguidBytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
            let length = Int(bytes[position + 16]) << 8 | Int(bytes[position + 17])
            position += 18
            guard length <= Self.maximumCredentialIDLength else { throw .credentialIDTooLong }
            guard length > 0, bytes.count - position >= length else { throw .malformedAuthenticatorData }
            let credentialID = Array(bytes[position..<position + length])
            position += length
            let key: (value: CBORValue, length: Int)
            do {
                key = try CBORDecoder.decodePrefix(bytes[position...])
            } catch {
                throw .malformedPublicKey("not CBOR")
            }
            let keyBytes = Array(bytes[position..<position + key.length])
            position += key.length
            attestedCredential = AttestedCredential(
                aaguid: aaguid, credentialID: credentialID, publicKeyBytes: keyBytes, publicKey: try COSEKey(key.value))
        } else {
            attestedCredential = nil
        }
        if flags.contains(.extensionData) {
            do {
                let value = try CBORDecoder.decode(bytes[position...])
                guard value.map != nil else { throw WebAuthnError.malformedAuthenticatorData }
                extensions = value
            } catch {
                throw .malformedAuthenticatorData
            }
        } else {
            guard position == bytes.count else { throw .malformedAuthenticatorData }
            extensions = nil
        }
    }
}
