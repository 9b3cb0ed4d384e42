import Crypto
import Foundation
import SwiftASN1
import X509
import _CryptoExtras

/// What a registration's attestation proves about the authenticator (WebAuthn Level 3 §6.5.4).
package enum AttestationType: String, Hashable, Sendable {
    /// `none`: nothing; the usual passkey registration.
    case none
    /// `packed` signed by the credential key itself: the key holder made it, no more.
    case selfAttestation = "self"
    /// `packed` with a certificate chain: signed by an attestation key of the model. The chain
    /// is not checked against any trust anchor here (the server asks for no attestation), so it
    /// proves the statement is consistent, not who made the authenticator.
    case basic
}

/// The attestation statement formats this server verifies (WebAuthn Level 3 §8): `none` and
/// `packed`. Others (`tpm`, `android-key`, `apple`, `fido-u2f`…) are refused with
/// ``WebAuthnError/unsupportedAttestationFormat(_:)``: a relying party that asks for no
/// attestation gets `none` from browsers.
enum AttestationStatement {
    /// The FIDO AAGUID certificate extension (id-fido-gen-ce-aaguid).
    static let aaguidExtension: ASN1ObjectIdentifier = [1, 3, 6, 1, 4, 1, 45724, 1, 1, 4]

    /// Verifies `statement` in `format` over `authData` and `clientDataHash` (§7.1 step 21).
    static func verify(
        format: String, statement: CBORValue, authData: AuthenticatorData, credential: AuthenticatorData.AttestedCredential,
        clientDataHash: [UInt8]
    ) throws(WebAuthnError) -> AttestationType {
        switch format {
        case "none":
            // §8.7: the statement is an empty map.
            guard statement.map?.isEmpty == true else { throw .malformedAttestationStatement }
            return .none
        case "packed":
            return try verifyPacked(statement, authData: authData, credential: credential, clientDataHash: clientDataHash)
        default:
            throw .unsupportedAttestationFormat(format.count <= 32 ? format : String(format.prefix(32)))
        }
    }

    /// `packed` (§8.2): `{alg, sig}` signed by the credential key (self attestation), or
    /// `{alg, sig, x5c}` signed by the leaf certificate's key, which must meet §8.2.1.
    static func verifyPacked(
        _ statement: CBORValue, authData: AuthenticatorData, credential: AuthenticatorData.AttestedCredential,
        clientDataHash: [UInt8]
    ) throws(WebAuthnError) -> AttestationType {
        guard let entries = statement.map, let alg = statement["alg"]?.int, let signature = statement["sig"]?.bytes else {
            throw .malformedAttestationStatement
        }
        let known: Set<CBORValue> = [.text("alg"), .text("sig"), .text("x5c")]
        guard entries.allSatisfy({ known.contains($0.key) }) else { throw .malformedAttestationStatement }
        let signed = authData.bytes + clientDataHash

        guard let x5c = statement["x5c"] else {
            guard alg == credential.publicKey.algorithm.rawValue else { throw .attestationAlgorithmMismatch }
            guard credential.publicKey.isValidSignature(signature, for: signed) else { throw .invalidAttestationSignature }
            return .selfAttestation
        }
        guard let chain = x5c.array, let leafBytes = chain.first?.bytes, chain.allSatisfy({ $0.bytes != nil }) else {
            throw .malformedAttestationStatement
        }
        guard let algorithm = COSEAlgorithm(rawValue: alg) else { throw .attestationAlgorithmMismatch }
        let leaf: Certificate
        do {
            leaf = try Certificate(derEncoded: leafBytes)
        } catch {
            throw .invalidAttestationCertificate("not an X.509 certificate")
        }
        let key = try attestationKey(of: leaf, algorithm: algorithm)
        guard key.isValidSignature(signature, for: signed) else { throw .invalidAttestationSignature }
        try checkRequirements(of: leaf, aaguid: credential.aaguid)
        return .basic
    }

    /// The leaf certificate's key as a verifier for `algorithm`.
    static func attestationKey(of certificate: Certificate, algorithm: COSEAlgorithm) throws(WebAuthnError) -> COSEKey {
        switch algorithm {
        case .es256:
            if let key = P256.Signing.PublicKey(certificate.publicKey) { return COSEKey(algorithm: algorithm, key: .p256(key)) }
        case .edDSA:
            if let key = Curve25519.Signing.PublicKey(certificate.publicKey) { return COSEKey(algorithm: algorithm, key: .ed25519(key)) }
        case .rs256:
            if let key = _RSA.Signing.PublicKey(certificate.publicKey), key.keySizeInBits >= 2048 {
                return COSEKey(algorithm: algorithm, key: .rsa(key))
            }
        }
        throw .invalidAttestationCertificate("key does not fit alg \(algorithm.rawValue)")
    }

    /// §8.2.1: version 3; subject with C, O, CN and OU "Authenticator Attestation"; not a CA;
    /// the AAGUID extension, when present, not critical and equal to the credential's AAGUID.
    static func checkRequirements(of certificate: Certificate, aaguid: UUID) throws(WebAuthnError) {
        guard certificate.version == .v3 else { throw .invalidAttestationCertificate("not version 3") }
        var subject: [ASN1ObjectIdentifier: String] = [:]
        for rdn in certificate.subject {
            for attribute in rdn { subject[attribute.type] = String(attribute.value) ?? "" }
        }
        let required: [ASN1ObjectIdentifier] = [
            .RDNAttributeType.countryName, .RDNAttributeType.organizationName, .RDNAttributeType.commonName,
        ]
        guard required.allSatisfy({ subject[$0]?.isEmpty == false }) else {
            throw .invalidAttestationCertificate("subject lacks C, O or CN")
        }
        guard subject[.RDNAttributeType.organizationalUnitName] == "Authenticator Attestation" else {
            throw .invalidAttestationCertificate("subject OU is not Authenticator Attestation")
        }
        let constraints: BasicConstraints?
        do {
            constraints = try certificate.extensions.basicConstraints
        } catch {
            throw .invalidAttestationCertificate("unreadable basic constraints")
        }
        if case .isCertificateAuthority = constraints { throw .invalidAttestationCertificate("is a CA") }
        if let extensionValue = certificate.extensions[oid: aaguidExtension] {
            guard !extensionValue.critical else { throw .invalidAttestationCertificate("AAGUID extension is critical") }
            let expected = [0x04, 0x10] + withUnsafeBytes(of: aaguid.uuid) { Array($0) }
            guard Array(extensionValue.value) == expected else { throw .invalidAttestationCertificate("AAGUID differs") }
        }
    }
}
