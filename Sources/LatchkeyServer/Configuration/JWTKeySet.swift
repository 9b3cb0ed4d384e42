import Crypto
import Foundation
import JWTKit
import LatchkeyWire
import _CryptoExtras

/// The keys access tokens are signed and verified with, given as GoTrue's `GOTRUE_JWT_KEYS`:
/// a JSON array of JWKs (RFC 7517).
///
/// ```json
/// [{"kty":"EC","crv":"P-256","x":"…","y":"…","d":"…","kid":"2f1c…","alg":"ES256","key_ops":["sign","verify"]},
///  {"kty":"EC","crv":"P-256","x":"…","y":"…","kid":"9a0e…","alg":"ES256","key_ops":["verify"]}]
/// ```
///
/// - Every key has a `kid` (unique in the set) and an `alg`: `ES256` (`kty` `EC`, curve
///   `P-256`), `RS256` (`kty` `RSA`, at least 2048 bits) or `HS256` (`kty` `oct`, a secret `k` of
///   at least 32 bytes).
/// - Exactly one key has `sign` in its `key_ops`: it signs new access tokens, whose header
///   names its `kid`. It must be a private key (`d` for EC and RSA).
/// - Every key verifies tokens whose header names its `kid` and its `alg`. A key without
///   `key_ops` verifies only; an EC or RSA key that only verifies may be a public key.
///
/// The server's legacy HS256 secret (``ServerConfiguration/jwtSecret``) keeps verifying
/// HS256 tokens without a `kid`, such as the `anon` and `service_role` API keys.
///
/// `description` lists the keys' ids and algorithms, never key material.
public struct JWTKeySet: Sendable, CustomStringConvertible {
    /// The signature algorithms a key can have.
    public enum Algorithm: String, Sendable, CaseIterable {
        case es256 = "ES256"
        case rs256 = "RS256"
        case hs256 = "HS256"
    }

    /// One key of the set.
    public struct Key: Sendable, CustomStringConvertible {
        /// The key's `kid`.
        public let id: String
        public let algorithm: Algorithm
        /// Whether it signs new tokens (`sign` in `key_ops`); every key verifies.
        public let signs: Bool
        /// The key's members as configured (with the public members filled in when they were
        /// derived from the private ones).
        let jwk: JSONWebKey
        let verification: VerificationKey
        /// The private key, kept for the signing key only.
        let signing: SigningMaterial?

        /// `ES256 2f1c… (signs)`: the id, algorithm and role, no key material.
        public var description: String { "\(algorithm.rawValue) \(id) (\(signs ? "signs" : "verifies"))" }
    }

    /// The private key that signs tokens.
    enum SigningMaterial: Sendable {
        case hs256(HMACKey)
        case es256(ES256PrivateKey)
        case rs256(JWTKit.Insecure.RSA.PrivateKey)
    }

    /// The keys, in the order given.
    public let keys: [Key]

    /// The key that signs new tokens.
    public var signingKey: Key { keys.first(where: \.signs)! }

    public var description: String { keys.map(\.description).joined(separator: ", ") }

    /// The keys `/.well-known/jwks.json` publishes: the public parts of the EC and RSA keys.
    var publicKeys: [JSONWebKey] { keys.compactMap(\.jwk.publicKey) }

    /// Parses and checks a `GOTRUE_JWT_KEYS` value.
    ///
    /// - Throws: ``ConfigurationError`` naming the key (by position and `kid`) and the problem;
    ///   the message never contains key material.
    public init(json: String) throws(ConfigurationError) {
        guard let array = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Any] else {
            throw ConfigurationError("JWT keys must be a JSON array of private JWKs, such as `latchkey keys generate` prints")
        }
        guard !array.isEmpty else { throw ConfigurationError("JWT keys: the list is empty; it needs one signing key") }
        var keys: [Key] = []
        for (index, element) in array.enumerated() {
            let position = "JWT key \(index + 1)"
            guard element is [String: Any], let data = try? JSONSerialization.data(withJSONObject: element),
                let jwk = try? JSONDecoder().decode(JSONWebKey.self, from: data)
            else {
                throw ConfigurationError("\(position) is not a JWK object (its members must be strings, key_ops a list of strings)")
            }
            let key = try Self.key(jwk, position: position)
            if keys.contains(where: { $0.id == key.id }) {
                throw ConfigurationError("\(position): kid \"\(key.id)\" is used by another key; every kid must be unique")
            }
            keys.append(key)
        }
        let signing = keys.filter(\.signs)
        guard signing.count == 1 else {
            if signing.isEmpty {
                throw ConfigurationError("JWT keys: no signing key; exactly one key needs \"sign\" in its key_ops")
            }
            throw ConfigurationError(
                "JWT keys: \(signing.count) signing keys (\(signing.map(\.id).joined(separator: ", "))); exactly one key may have \"sign\" in its key_ops, the others [\"verify\"]"
            )
        }
        self.keys = keys
    }

    /// One key, checked.
    private static func key(_ given: JSONWebKey, position: String) throws(ConfigurationError) -> Key {
        guard let id = given.kid, !id.isEmpty else { throw ConfigurationError("\(position) has no kid") }
        let name = "\(position) (kid \"\(id)\")"
        guard let alg = given.alg else { throw ConfigurationError("\(name) has no alg; use ES256, RS256 or HS256") }
        guard let algorithm = Algorithm(rawValue: alg) else {
            throw ConfigurationError("\(name): alg \(alg) is not supported; use ES256, RS256 or HS256")
        }
        let operations = given.keyOps ?? ["verify"]
        guard operations.contains("sign") || operations.contains("verify") else {
            throw ConfigurationError("\(name): key_ops must contain \"sign\" (the signing key) or \"verify\"")
        }
        if let use = given.use, use != "sig" { throw ConfigurationError("\(name): use must be \"sig\"") }
        let signs = operations.contains("sign")
        var jwk = given
        let verification: VerificationKey
        var signing: SigningMaterial?
        switch algorithm {
        case .hs256:
            guard given.kty == "oct" else { throw ConfigurationError("\(name): an HS256 key has kty \"oct\"") }
            guard let secret = given.k.flatMap(Base64URL.decode) else { throw ConfigurationError("\(name): k must be the base64url secret") }
            guard secret.count >= 32 else { throw ConfigurationError("\(name): the secret k must be at least 32 bytes long") }
            let key = SymmetricKey(data: secret)
            verification = .hs256(key)
            if signs { signing = .hs256(HMACKey(key: key)) }
        case .es256:
            guard given.kty == "EC" else { throw ConfigurationError("\(name): an ES256 key has kty \"EC\"") }
            guard given.crv == "P-256" else { throw ConfigurationError("\(name): an ES256 key has crv \"P-256\"") }
            let point: Data?
            if let x = given.x, let y = given.y {
                guard let x = Base64URL.decode(x), let y = Base64URL.decode(y), x.count == 32, y.count == 32 else {
                    throw ConfigurationError("\(name): x and y must be 32-byte base64url coordinates")
                }
                point = x + y
            } else {
                point = nil
            }
            let publicKey: P256.Signing.PublicKey
            if let d = given.d {
                guard let scalar = Base64URL.decode(d), scalar.count == 32, let privateKey = try? P256.Signing.PrivateKey(rawRepresentation: scalar)
                else {
                    throw ConfigurationError("\(name): d is not a P-256 private key")
                }
                publicKey = privateKey.publicKey
                if let point, point != publicKey.rawRepresentation {
                    throw ConfigurationError("\(name): x and y are not the public key of d")
                }
                if signs { signing = try? .es256(ES256PrivateKey(backing: privateKey)) }
            } else {
                guard let point, let key = try? P256.Signing.PublicKey(rawRepresentation: point) else {
                    throw ConfigurationError("\(name): needs x and y (a public key) or d (a private key)")
                }
                publicKey = key
            }
            let raw = publicKey.rawRepresentation
            jwk.x = Base64URL.encode(raw.prefix(32))
            jwk.y = Base64URL.encode(raw.suffix(32))
            verification = .publicKey(.es256(publicKey))
        case .rs256:
            guard given.kty == "RSA" else { throw ConfigurationError("\(name): an RS256 key has kty \"RSA\"") }
            guard let n = given.n.flatMap(Base64URL.decode), let e = given.e.flatMap(Base64URL.decode) else {
                throw ConfigurationError("\(name): n and e must be base64url")
            }
            let publicKey: _RSA.Signing.PublicKey
            if let d = given.d {
                guard let d = Base64URL.decode(d) else { throw ConfigurationError("\(name): d must be base64url") }
                let privateKey: _RSA.Signing.PrivateKey
                do {
                    if let p = given.p, let q = given.q {
                        guard let p = Base64URL.decode(p), let q = Base64URL.decode(q) else {
                            throw ConfigurationError("\(name): p and q must be base64url")
                        }
                        privateKey = try _RSA.Signing.PrivateKey(n: n, e: e, d: d, p: p, q: q)
                    } else {
                        privateKey = try _RSA.Signing.PrivateKey._createFromNumbers(n: n, e: e, d: d)
                    }
                } catch let error as ConfigurationError {
                    throw error
                } catch {
                    throw ConfigurationError("\(name) is not a valid RSA private key of at least 2048 bits")
                }
                publicKey = privateKey.publicKey
                if signs { signing = try? .rs256(JWTKit.Insecure.RSA.PrivateKey(backing: privateKey)) }
            } else {
                guard let key = try? _RSA.Signing.PublicKey(n: n, e: e) else {
                    throw ConfigurationError("\(name) is not a valid RSA public key of at least 2048 bits")
                }
                publicKey = key
            }
            verification = .publicKey(.rs256(publicKey))
        }
        if signs, signing == nil {
            throw ConfigurationError("\(name) has \"sign\" in key_ops but no private key (d)")
        }
        return Key(id: id, algorithm: algorithm, signs: signs, jwk: jwk, verification: verification, signing: signing)
    }
}
