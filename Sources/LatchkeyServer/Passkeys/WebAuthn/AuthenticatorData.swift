import Foundation

/// Authenticator data (WebAuthn Level 3 §6.1), parsed strictly.
///
/// The layout is rpIdHash (32 bytes), flags (1), signCount (4, big-endian), then attested
/// credential data when AT is set (§6.5.2: AAGUID 16 bytes, a 2-byte credential id length of at
/// most 1023, the id, and the credential's COSE key as one CBOR item), then the extensions as a
/// CBOR map when ED is set. Bytes nothing accounts for are refused, and so is a COSE key or
/// extensions map that is not well-formed CBOR.
package struct AuthenticatorData: Sendable {
    /// The flags byte (§6.1): bit 0 UP, 2 UV, 3 BE, 4 BS, 6 AT, 7 ED.
    package struct Flags: OptionSet, Hashable, Sendable {
        package let rawValue: UInt8
        package init(rawValue: UInt8) { self.rawValue = rawValue }

        /// User present.
        package static let userPresent = Flags(rawValue: 0x01)
        /// User verified.
        package static let userVerified = Flags(rawValue: 0x04)
        /// Backup eligible: the credential may be synced (a multi-device credential).
        package static let backupEligible = Flags(rawValue: 0x08)
        /// Backed up: the credential is currently synced.
        package static let backedUp = Flags(rawValue: 0x10)
        /// Attested credential data included.
        package static let attestedCredentialData = Flags(rawValue: 0x40)
        /// Extension data included.
        package static let extensionData = Flags(rawValue: 0x80)
    }

    /// The credential a registration's authenticator data carries (§6.5.2).
    package struct AttestedCredential: Sendable {
        /// The authenticator model's AAGUID (all zeros when it does not say).
        package let aaguid: UUID
        /// The credential id, 1023 bytes at most.
        package let credentialID: [UInt8]
        /// The credential public key exactly as encoded (what is stored).
        package let publicKeyBytes: [UInt8]
        /// The decoded key.
        package let publicKey: COSEKey
    }

    /// The longest credential id §6.5.2 allows.
    package static let maximumCredentialIDLength = 1023

    /// All of the authenticator data, as signed.
    package let bytes: [UInt8]
    /// SHA-256 of the RP ID the credential is scoped to.
    package let rpIDHash: [UInt8]
    /// The flags.
    package let flags: Flags
    /// The signature counter (0 when the authenticator keeps none).
    package let signCount: UInt32
    /// The attested credential data, when AT is set.
    package let attestedCredential: AttestedCredential?
    /// The authenticator extension outputs, when ED is set (a CBOR map).
    package let extensions: CBORValue?

    /// Parses `bytes`; throws ``WebAuthnError/malformedAuthenticatorData`` (or a more precise
    /// reason for the credential id and key) on anything that does not fit §6.1.
    package init(_ bytes: [UInt8]) throws(WebAuthnError) {
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
