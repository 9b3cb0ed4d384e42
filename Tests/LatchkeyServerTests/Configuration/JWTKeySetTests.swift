import Foundation
import LatchkeyWire
import Testing

@testable import LatchkeyServer

/// `--jwt-keys` / `GOTRUE_JWT_KEYS` parsing: every mistake is a startup error that names the
/// key and the problem, and never repeats key material.
@Suite("JWT key set configuration")
struct JWTKeySetTests {
    static func jwk(_ algorithm: JWTKeySet.Algorithm, signs: Bool = true) throws -> [String: Any] {
        try JWTKeysTests.jwk(algorithm, signs: signs)
    }

    static func json(_ keys: [[String: Any]]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: keys), as: UTF8.self)
    }

    /// The error `json` gives, checked not to contain any secret member of `keys`.
    func error(_ json: String, keys: [[String: Any]] = []) -> String {
        do {
            _ = try JWTKeySet(json: json)
            Issue.record("accepted: \(json.prefix(40))")
            return ""
        } catch {
            for key in keys {
                for member in ["d", "k", "p", "q", "dp", "dq", "qi"] {
                    if let value = key[member] as? String { #expect(!error.description.contains(value), "\(member) in the message") }
                }
            }
            return error.description
        }
    }

    @Test("generated keys of every algorithm parse; the one with sign signs")
    func generatedKeys() throws {
        for algorithm in JWTKeySet.Algorithm.allCases {
            let signing = try Self.jwk(algorithm)
            let standby = try Self.jwk(algorithm, signs: false)
            #expect(signing["key_ops"] as? [String] == ["sign", "verify"])
            #expect(standby["key_ops"] as? [String] == ["verify"])
            #expect(signing["use"] as? String == "sig")
            #expect(UUID(uuidString: signing["kid"] as? String ?? "") != nil)
            let set = try JWTKeySet(json: try Self.json([standby, signing]))
            #expect(set.signingKey.id == signing["kid"] as? String)
            #expect(set.signingKey.algorithm == algorithm)
            #expect(set.keys.map(\.signs) == [false, true])
        }
    }

    @Test("a verify-only EC or RSA key may be a public key; key_ops may be left out (verify only)")
    func publicVerifyKeys() throws {
        var ec = try Self.jwk(.es256, signs: false)
        ec["d"] = nil
        var rsa = try Self.jwk(.rs256, signs: false)
        for member in ["d", "p", "q", "dp", "dq", "qi"] { rsa[member] = nil }
        rsa["key_ops"] = nil
        let set = try JWTKeySet(json: try Self.json([try Self.jwk(.es256), ec, rsa]))
        #expect(set.publicKeys.count == 3)
        #expect(set.keys.filter(\.signs).count == 1)
    }

    @Test("configuration mistakes are named, without key material")
    func mistakes() throws {
        let signing = try Self.jwk(.es256)
        let other = try Self.jwk(.rs256)
        #expect(error("not json").contains("JSON array"))
        #expect(error(#"{"keys": []}"#).contains("JSON array"))
        #expect(error("[]").contains("empty"))
        #expect(error("[42]").contains("JWT key 1 is not a JWK object"))
        #expect(error(try Self.json([try Self.jwk(.es256, signs: false)])).contains("no signing key"))
        let two = error(try Self.json([signing, other]), keys: [signing, other])
        #expect(two.contains("2 signing keys") && two.contains(signing["kid"] as! String))

        var noKid = signing
        noKid["kid"] = nil
        #expect(error(try Self.json([noKid]), keys: [signing]).contains("JWT key 1 has no kid"))
        var duplicate = try Self.jwk(.es256, signs: false)
        duplicate["kid"] = signing["kid"]
        #expect(error(try Self.json([signing, duplicate]), keys: [signing, duplicate]).contains("is used by another key"))
        var es384 = signing
        es384["alg"] = "ES384"
        #expect(error(try Self.json([es384]), keys: [signing]).contains("alg ES384 is not supported"))
        var noAlg = signing
        noAlg["alg"] = nil
        #expect(error(try Self.json([noAlg]), keys: [signing]).contains("has no alg"))
        var wrongType = signing
        wrongType["alg"] = "RS256"
        #expect(error(try Self.json([wrongType]), keys: [signing]).contains("an RS256 key has kty \"RSA\""))
        var encrypt = signing
        encrypt["key_ops"] = ["encrypt"]
        #expect(error(try Self.json([encrypt]), keys: [signing]).contains("key_ops"))
        var publicSigner = signing
        publicSigner["d"] = nil
        #expect(error(try Self.json([publicSigner])).contains("no private key"))
        var mismatch = signing
        mismatch["x"] = other["kid"].map { _ in try! Self.jwk(.es256)["x"]! }
        #expect(error(try Self.json([mismatch]), keys: [signing]).contains("x and y are not the public key of d"))
        var badD = signing
        badD["d"] = "not base64url!"
        #expect(error(try Self.json([badD])).contains("d is not a P-256 private key"))

        var shortSecret = try Self.jwk(.hs256)
        shortSecret["k"] = "c2hvcnQ"
        #expect(error(try Self.json([shortSecret])).contains("at least 32 bytes"))
        var smallRSA = other
        for member in ["d", "p", "q", "dp", "dq", "qi"] { smallRSA[member] = nil }
        smallRSA["n"] = Base64URL.encode(Data(repeating: 0xC3, count: 128))
        smallRSA["key_ops"] = ["verify"]
        #expect(error(try Self.json([signing, smallRSA]), keys: [signing]).contains("at least 2048 bits"))
    }
}
