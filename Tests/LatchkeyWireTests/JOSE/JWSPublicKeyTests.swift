import Crypto
import Foundation
import LatchkeyWire
import Testing
import _CryptoExtras

@Suite("JWS public keys from JWKs: which keys check signatures, and the signatures they accept")
struct JWSPublicKeyTests {
    static let signedPart = Data("eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0".utf8)

    static func ecJWK(_ key: P256.Signing.PrivateKey, alg: String? = "ES256") -> JSONWebKey {
        var jwk = JSONWebKey(kty: "EC", kid: "ec", alg: alg, use: "sig", keyOps: ["verify"])
        let point = key.publicKey.rawRepresentation
        (jwk.crv, jwk.x, jwk.y) = ("P-256", Base64URL.encode(point.prefix(32)), Base64URL.encode(point.suffix(32)))
        return jwk
    }

    static func rsaJWK(_ key: _RSA.Signing.PrivateKey) throws -> JSONWebKey {
        let primitives = try key.publicKey.getKeyPrimitives()
        var jwk = JSONWebKey(kty: "RSA", kid: "rsa", alg: "RS256")
        (jwk.n, jwk.e) = (Base64URL.encode(primitives.modulus), Base64URL.encode(primitives.publicExponent))
        return jwk
    }

    @Test("an EC P-256 key checks ES256: its own signature passes; a changed payload, another key's or a DER signature fails")
    func es256() throws {
        let privateKey = P256.Signing.PrivateKey()
        let key = try #require(JWSPublicKey(Self.ecJWK(privateKey)))
        #expect(key.algorithm == "ES256")
        let signature = try privateKey.signature(for: Self.signedPart)
        #expect(key.isValid(signature: signature.rawRepresentation, for: Self.signedPart))
        #expect(!key.isValid(signature: signature.rawRepresentation, for: Self.signedPart + Data("x".utf8)))
        #expect(!key.isValid(signature: try P256.Signing.PrivateKey().signature(for: Self.signedPart).rawRepresentation, for: Self.signedPart))
        #expect(!key.isValid(signature: signature.derRepresentation, for: Self.signedPart))
    }

    @Test("an RSA key of 2048 bits checks RS256 (PKCS #1 v1.5); a 1024-bit one is refused")
    func rs256() throws {
        let privateKey = try _RSA.Signing.PrivateKey(keySize: .bits2048)
        let key = try #require(JWSPublicKey(try Self.rsaJWK(privateKey)))
        #expect(key.algorithm == "RS256")
        let signature = try privateKey.signature(for: Self.signedPart, padding: .insecurePKCS1v1_5)
        #expect(key.isValid(signature: signature.rawRepresentation, for: Self.signedPart))
        let pss = try privateKey.signature(for: Self.signedPart, padding: .PSS)
        #expect(!key.isValid(signature: pss.rawRepresentation, for: Self.signedPart))

        let weak = try _RSA.Signing.PrivateKey(unsafeKeySize: .init(bitCount: 1024))
        #expect(JWSPublicKey(try Self.rsaJWK(weak)) == nil)
    }

    @Test("keys that must not check signatures: oct, encryption keys, key_ops without verify, another alg, another curve, bad points")
    func refusedKeys() throws {
        let good = Self.ecJWK(P256.Signing.PrivateKey())
        #expect(JWSPublicKey(good) != nil)
        var secret = JSONWebKey(kty: "oct", kid: "s", alg: "HS256")
        secret.k = Base64URL.encode(Data(repeating: 7, count: 32))
        #expect(JWSPublicKey(secret) == nil)
        var jwk = good
        jwk.use = "enc"
        #expect(JWSPublicKey(jwk) == nil)
        jwk = good
        jwk.keyOps = ["sign"]
        #expect(JWSPublicKey(jwk) == nil)
        jwk = good
        jwk.alg = "RS256"
        #expect(JWSPublicKey(jwk) == nil)
        jwk = good
        jwk.crv = "P-384"
        #expect(JWSPublicKey(jwk) == nil)
        jwk = good
        jwk.x = Base64URL.encode(Data(repeating: 1, count: 31))
        #expect(JWSPublicKey(jwk) == nil)
        jwk = good
        jwk.y = Base64URL.encode(Data(repeating: 1, count: 32))  // not on the curve
        #expect(JWSPublicKey(jwk) == nil)
        // Without alg, use and key_ops the key still checks its own kind's algorithm.
        jwk = Self.ecJWK(P256.Signing.PrivateKey(), alg: nil)
        (jwk.use, jwk.keyOps) = (nil, nil)
        #expect(JWSPublicKey(jwk)?.algorithm == "ES256")
    }

    @Test("a JWKS is read leniently: members that are not readable JWKs are left out, the others kept in order")
    func lenientKeySet() throws {
        let good = Self.ecJWK(P256.Signing.PrivateKey())
        let goodJSON = String(decoding: try JSONEncoder().encode(good), as: UTF8.self)
        let document = #"{"keys": [42, {"kty": "EC", "kid": 7}, "text", "# + goodJSON + #", {"kty": "OKP", "crv": "Ed25519", "x": "AA"}]}"#
        let set = try JSONDecoder().decode(JSONWebKeySet.self, from: Data(document.utf8))
        #expect(set.keys.count == 2)
        #expect(set.keys.first == good)
        #expect(set.keys.last?.kty == "OKP")
        #expect(set.keys.compactMap(JWSPublicKey.init).count == 1)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(JSONWebKeySet.self, from: Data(#"{"key": []}"#.utf8)) }
        #expect(throws: (any Error).self) { try JSONDecoder().decode(JSONWebKeySet.self, from: Data("[]".utf8)) }
    }
}
