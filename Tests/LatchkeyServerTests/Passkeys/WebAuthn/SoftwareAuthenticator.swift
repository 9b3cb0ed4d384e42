import Crypto
import Foundation
import LatchkeyWire
import SwiftASN1
import X509
import _CryptoExtras

@testable import LatchkeyServer

/// A hand-made authenticator for what Python's soft-webauthn cannot make: EdDSA and RS256 keys,
/// packed self and x5c attestation, BE/BS and UV flags, extensions after the key, any counter.
/// It builds the bytes as §6.1, §6.5 and §8.2 describe, with swift-crypto keys and the tests'
/// CBOR encoder.
struct SoftwareAuthenticator {
    enum Signer {
        case p256(P256.Signing.PrivateKey)
        case ed25519(Curve25519.Signing.PrivateKey)
        case rsa(_RSA.Signing.PrivateKey)
    }

    enum Attestation {
        case none
        case packedSelf
        /// Signed by `key`, whose certificate is `certificate` (DER).
        case packedX5C(certificate: [UInt8], key: P256.Signing.PrivateKey)
    }

    /// One RSA key for all tests: generating 2048-bit keys is slow.
    static let rsaKey = try! _RSA.Signing.PrivateKey(keySize: .bits2048)

    static let rpID = "example.com"
    static let origin = "https://example.com"

    let signer: Signer
    let credentialID: [UInt8]
    var aaguid: [UInt8] = (0..<16).map { UInt8($0 * 7 & 0xff) }
    var userHandle: [UInt8] = Array("user-1234".utf8)
    var signCount: UInt32 = 0

    init(_ algorithm: COSEAlgorithm = .es256) {
        switch algorithm {
        case .es256: signer = .p256(P256.Signing.PrivateKey())
        case .edDSA: signer = .ed25519(Curve25519.Signing.PrivateKey())
        case .rs256: signer = .rsa(Self.rsaKey)
        }
        credentialID = (0..<32).map { _ in UInt8.random(in: 0...255) }
    }

    var algorithm: COSEAlgorithm {
        switch signer {
        case .p256: .es256
        case .ed25519: .edDSA
        case .rsa: .rs256
        }
    }

    /// The credential public key as a COSE_Key map.
    var coseKey: CBORValue {
        switch signer {
        case .p256(let key):
            let point = Array(key.publicKey.x963Representation)
            return .pairs([
                (.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), .bytes(Array(point[1..<33]))),
                (.int(-3), .bytes(Array(point[33..<65]))),
            ])
        case .ed25519(let key):
            return .pairs([(.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)), (.int(-2), .bytes(Array(key.publicKey.rawRepresentation)))])
        case .rsa(let key):
            let primitives = try! key.publicKey.getKeyPrimitives()
            return .pairs([
                (.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes(Array(primitives.modulus))),
                (.int(-2), .bytes(Array(primitives.publicExponent))),
            ])
        }
    }

    var coseKeyBytes: [UInt8] { CBOREncoder.encode(coseKey) }

    func sign(_ data: [UInt8]) -> [UInt8] {
        switch signer {
        case .p256(let key): Array(try! key.signature(for: data).derRepresentation)
        case .ed25519(let key): Array(try! key.signature(for: data))
        case .rsa(let key): Array(try! key.signature(for: data, padding: .insecurePKCS1v1_5).rawRepresentation)
        }
    }

    static func clientDataJSON(type: String, challenge: [UInt8], origin: String = origin, extra: String = "") -> [UInt8] {
        Array(#"{"type":"\#(type)","challenge":"\#(Base64URL.encode(challenge))","origin":"\#(origin)","crossOrigin":false\#(extra)}"#.utf8)
    }

    /// Authenticator data with `flags`; attested credential data when AT is in them, then
    /// `extensions` when given (ED is set for them).
    func authenticatorData(rpID: String = rpID, flags: UInt8, signCount: UInt32, extensions: CBORValue? = nil) -> [UInt8] {
        var flags = flags
        if extensions != nil { flags |= 0x80 }
        var data = Array(SHA256.hash(data: Array(rpID.utf8))) + [flags] + CBOREncoder.bigEndian(UInt64(signCount), count: 4)
        if flags & 0x40 != 0 {
            data += aaguid + CBOREncoder.bigEndian(UInt64(credentialID.count), count: 2) + credentialID + coseKeyBytes
        }
        if let extensions { data += CBOREncoder.encode(extensions) }
        return data
    }

    /// A registration response: flags UP and AT by default.
    func register(
        challenge: [UInt8], flags: UInt8 = 0x41, attestation: Attestation = .none, extensions: CBORValue? = nil,
        origin: String = origin, rpID: String = rpID, transports: [String] = ["internal", "hybrid"]
    ) -> RegistrationResponse {
        let clientData = Self.clientDataJSON(type: "webauthn.create", challenge: challenge, origin: origin)
        let authData = authenticatorData(rpID: rpID, flags: flags, signCount: signCount, extensions: extensions)
        let signed = authData + Array(SHA256.hash(data: clientData))
        let (format, statement): (String, CBORValue)
        switch attestation {
        case .none:
            (format, statement) = ("none", .map([]))
        case .packedSelf:
            (format, statement) = ("packed", .pairs([(.text("alg"), .int(algorithm.rawValue)), (.text("sig"), .bytes(sign(signed)))]))
        case .packedX5C(let certificate, let key):
            let signature = Array(try! key.signature(for: signed).derRepresentation)
            (format, statement) = (
                "packed",
                .pairs([(.text("alg"), .int(-7)), (.text("sig"), .bytes(signature)), (.text("x5c"), .array([.bytes(certificate)]))])
            )
        }
        let object = CBORValue.pairs([(.text("fmt"), .text(format)), (.text("attStmt"), statement), (.text("authData"), .bytes(authData))])
        return RegistrationResponse(clientDataJSON: clientData, attestationObject: CBOREncoder.encode(object), transports: transports)
    }

    /// An assertion: flags UP by default; the counter advances first unless `signCount` is given.
    mutating func assert(
        challenge: [UInt8], flags: UInt8 = 0x01, signCount: UInt32? = nil, origin: String = origin, rpID: String = rpID,
        type: String = "webauthn.get"
    ) -> AssertionResponse {
        if let signCount { self.signCount = signCount } else { self.signCount += 1 }
        let clientData = Self.clientDataJSON(type: type, challenge: challenge, origin: origin)
        let authData = authenticatorData(rpID: rpID, flags: flags & ~0x40, signCount: self.signCount)
        return AssertionResponse(
            credentialID: credentialID, clientDataJSON: clientData, authenticatorData: authData,
            signature: sign(authData + Array(SHA256.hash(data: clientData))), userHandle: userHandle)
    }

    /// The stored credential after a registration.
    func stored(backupEligible: Bool = false, signCount: UInt32 = 0) -> StoredCredential {
        StoredCredential(credentialID: credentialID, publicKey: coseKeyBytes, signCount: signCount, backupEligible: backupEligible)
    }

    /// A packed attestation certificate (§8.2.1), self-signed by its own P-256 key, with the
    /// given subject OU, CA flag and AAGUID extension.
    static func attestationCertificate(
        key: P256.Signing.PrivateKey, organizationalUnit: String = "Authenticator Attestation", isCA: Bool = false, aaguid: [UInt8]?
    ) throws -> [UInt8] {
        let name = try DistinguishedName {
            CountryName("SE")
            OrganizationName("Latchkey Tests")
            OrganizationalUnitName(organizationalUnit)
            CommonName("Latchkey Test Authenticator")
        }
        var extensions = Certificate.Extensions()
        try extensions.append(
            Certificate.Extension(isCA ? .isCertificateAuthority(maxPathLength: nil) : .notCertificateAuthority, critical: true))
        if let aaguid {
            try extensions.append(
                Certificate.Extension(oid: AttestationStatement.aaguidExtension, critical: false, value: [0x04, 0x10] + aaguid[...]))
        }
        let now = Date()
        let certificate = try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key.publicKey),
            notValidBefore: now - 3600, notValidAfter: now + 3600, issuer: name, subject: name, signatureAlgorithm: .ecdsaWithSHA256,
            extensions: extensions, issuerPrivateKey: Certificate.PrivateKey(key))
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}
