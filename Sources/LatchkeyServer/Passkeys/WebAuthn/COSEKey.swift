import Crypto
import _CryptoExtras

/// A credential public key in COSE_Key form (RFC 9052 §7, RFC 9053), parsed into the
/// swift-crypto key that verifies its signatures.
///
/// Three shapes are accepted, each with its algorithm required and consistent with its key type:
/// EC2 on P-256 with ES256 (-7), OKP Ed25519 with EdDSA (-8), and RSA of at least 2048 bits
/// with RS256 (-257). EC2 points must be on the curve (swift-crypto checks); other key types,
/// curves and algorithms are refused with ``WebAuthnError/malformedPublicKey(_:)``.
struct COSEKey: Sendable {
    /// The key, typed by algorithm.
    enum Key: Sendable {
        case p256(P256.Signing.PublicKey)
        case ed25519(Curve25519.Signing.PublicKey)
        case rsa(_RSA.Signing.PublicKey)
    }

    /// The algorithm the key is for (its `alg`, 3).
    let algorithm: COSEAlgorithm
    /// The swift-crypto key.
    let key: Key

    /// A key already parsed elsewhere (an attestation certificate's).
    init(algorithm: COSEAlgorithm, key: Key) {
        self.algorithm = algorithm
        self.key = key
    }

    // COSE labels (RFC 9052 table 4, RFC 9053 tables 19 and 20).
    private static let ktyLabel = 1, algLabel = 3
    private static let kty = (okp: 1, ec2: 2, rsa: 3)

    /// Parses a decoded COSE_Key map.
    init(_ value: CBORValue) throws(WebAuthnError) {
        guard value.map != nil else { throw .malformedPublicKey("not a map") }
        guard let kty = value[Self.ktyLabel]?.int else { throw .malformedPublicKey("no key type") }
        guard let alg = value[Self.algLabel]?.int else { throw .malformedPublicKey("no algorithm") }
        guard let algorithm = COSEAlgorithm(rawValue: alg) else { throw .malformedPublicKey("unsupported algorithm \(alg)") }
        self.algorithm = algorithm
        switch (algorithm, kty) {
        case (.es256, Self.kty.ec2):
            // crv (-1) P-256 (1); x (-2) and y (-3), 32 bytes each.
            guard value[-1]?.int == 1 else { throw .malformedPublicKey("EC2 key not on P-256") }
            guard let x = value[-2]?.bytes, let y = value[-3]?.bytes, x.count == 32, y.count == 32 else {
                throw .malformedPublicKey("EC2 coordinates missing or not 32 bytes")
            }
            do {
                key = .p256(try P256.Signing.PublicKey(x963Representation: [0x04] + x + y))
            } catch {
                throw .malformedPublicKey("EC2 point not on the curve")
            }
        case (.edDSA, Self.kty.okp):
            // crv (-1) Ed25519 (6); x (-2), 32 bytes.
            guard value[-1]?.int == 6 else { throw .malformedPublicKey("OKP key not Ed25519") }
            guard let x = value[-2]?.bytes, x.count == 32 else { throw .malformedPublicKey("Ed25519 key not 32 bytes") }
            do {
                key = .ed25519(try Curve25519.Signing.PublicKey(rawRepresentation: x))
            } catch {
                throw .malformedPublicKey("Ed25519 key refused")
            }
        case (.rs256, Self.kty.rsa):
            // n (-1) and e (-2), unsigned big-endian.
            guard let n = value[-1]?.bytes, let e = value[-2]?.bytes, !n.isEmpty, !e.isEmpty, e.count <= 8 else {
                throw .malformedPublicKey("RSA modulus or exponent missing")
            }
            do {
                key = .rsa(try _RSA.Signing.PublicKey(n: n, e: e))
            } catch {
                throw .malformedPublicKey("RSA key refused (2048 bits at least)")
            }
        default:
            throw .malformedPublicKey("key type \(kty) does not fit algorithm \(alg)")
        }
    }

    /// Decodes and parses COSE_Key bytes that must be exactly one CBOR item (a stored key).
    init(bytes: some Collection<UInt8>) throws(WebAuthnError) {
        let value: CBORValue
        do {
            value = try CBORDecoder.decode(bytes)
        } catch {
            throw .malformedPublicKey("not CBOR")
        }
        try self.init(value)
    }

    /// Whether `signature` is this key's signature of `data` under its algorithm: a DER
    /// ECDSA signature for ES256, 64 raw bytes for EdDSA, PKCS #1 v1.5 with SHA-256 for RS256.
    func isValidSignature(_ signature: [UInt8], for data: [UInt8]) -> Bool {
        switch key {
        case .p256(let key):
            guard let signature = try? P256.Signing.ECDSASignature(derRepresentation: signature) else { return false }
            return key.isValidSignature(signature, for: data)
        case .ed25519(let key):
            return signature.count == 64 && key.isValidSignature(signature, for: data)
        case .rsa(let key):
            guard signature.count == key.keySizeInBits / 8 else { return false }
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: data, padding: .insecurePKCS1v1_5)
        }
    }
}
