import Crypto
import Testing

@testable import LatchkeyServer

/// COSE keys (RFC 9052/9053) into swift-crypto keys, and their signatures.
@Suite("COSE keys")
struct COSEKeyTests {
    @Test("ES256, EdDSA and RS256 keys parse and verify their own signatures only", arguments: COSEAlgorithm.allCases)
    func roundTrip(algorithm: COSEAlgorithm) throws {
        let authenticator = SoftwareAuthenticator(algorithm)
        let key = try COSEKey(bytes: authenticator.coseKeyBytes)
        #expect(key.algorithm == algorithm)
        let message = Array("signed bytes".utf8)
        var signature = authenticator.sign(message)
        #expect(key.isValidSignature(signature, for: message))
        #expect(!key.isValidSignature(signature, for: message + [0]))
        signature[signature.count / 2] ^= 0x01
        #expect(!key.isValidSignature(signature, for: message))
        #expect(!key.isValidSignature([], for: message))
    }

    @Test("ES256 wants DER signatures: raw r||s is refused")
    func derOnly() throws {
        let key = P256.Signing.PrivateKey()
        let cose = CBORValue.pairs([
            (.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)),
            (.int(-2), .bytes(Array(key.publicKey.x963Representation[1..<33]))),
            (.int(-3), .bytes(Array(key.publicKey.x963Representation[33..<65]))),
        ])
        let parsed = try COSEKey(cose)
        let message = Array("m".utf8)
        let signature = try key.signature(for: message)
        #expect(parsed.isValidSignature(Array(signature.derRepresentation), for: message))
        #expect(!parsed.isValidSignature(Array(signature.rawRepresentation), for: message))
    }

    @Test("keys that do not fit their algorithm, curve or size are refused")
    func refused() {
        let p256 = P256.Signing.PrivateKey().publicKey.x963Representation
        let x = CBORValue.bytes(Array(p256[1..<33]))
        let y = CBORValue.bytes(Array(p256[33..<65]))
        let cases: [CBORValue] = [
            .array([]),
            .pairs([(.int(1), .int(2)), (.int(-1), .int(1)), (.int(-2), x), (.int(-3), y)]),  // no alg
            .pairs([(.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), x), (.int(-3), y)]),  // no kty
            .pairs([(.int(1), .int(2)), (.int(3), .int(-35)), (.int(-1), .int(2)), (.int(-2), x), (.int(-3), y)]),  // ES384
            .pairs([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(2)), (.int(-2), x), (.int(-3), y)]),  // P-384 crv
            .pairs([(.int(1), .int(1)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), x), (.int(-3), y)]),  // kty OKP
            .pairs([(.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), x)]),  // no y
            .pairs([
                (.int(1), .int(2)), (.int(3), .int(-7)), (.int(-1), .int(1)), (.int(-2), x), (.int(-3), .bytes([UInt8](repeating: 7, count: 32))),
            ]),  // off the curve
            .pairs([(.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(4)), (.int(-2), x)]),  // X25519 crv
            .pairs([(.int(1), .int(1)), (.int(3), .int(-8)), (.int(-1), .int(6)), (.int(-2), .bytes([1, 2, 3]))]),
            .pairs([
                (.int(1), .int(3)), (.int(3), .int(-257)), (.int(-1), .bytes([UInt8](repeating: 0xc1, count: 128))), (.int(-2), .bytes([1, 0, 1])),
            ]),  // RSA-1024
            .pairs([(.int(1), .int(3)), (.int(3), .int(-257)), (.int(-2), .bytes([1, 0, 1]))]),
        ]
        for value in cases {
            #expect(throws: WebAuthnError.self) { try COSEKey(value) }
        }
        #expect(throws: WebAuthnError.malformedPublicKey("not CBOR")) { try COSEKey(bytes: [0xa1]) }
        #expect(throws: WebAuthnError.malformedPublicKey("not CBOR")) { try COSEKey(bytes: SoftwareAuthenticator().coseKeyBytes + [0]) }
    }
}
