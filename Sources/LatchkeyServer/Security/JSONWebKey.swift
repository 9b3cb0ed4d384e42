import Foundation
import LatchkeyWire

/// A JSON Web Key (RFC 7517, RFC 7518 §6) as GoTrue's `GOTRUE_JWT_KEYS` lists them (private
/// keys) and `GET /.well-known/jwks.json` publishes them (public keys).
///
/// Only the members Latchkey reads or writes: the key's identity (`kty`, `kid`, `alg`, `use`,
/// `key_ops`) and the members of `oct`, `EC` (P-256) and `RSA` keys. Unknown members are
/// ignored when decoding. Encoding leaves out members that are `nil`.
struct JSONWebKey: Codable, Sendable, Equatable {
    var kty: String?
    var kid: String?
    var alg: String?
    var use: String?
    var keyOps: [String]?
    /// `oct`: the secret.
    var k: String?
    /// `EC`: the curve and the public point.
    var crv: String?
    var x: String?
    var y: String?
    /// `EC` and `RSA`: the private exponent.
    var d: String?
    /// `RSA`: the modulus and public exponent, then the private key's primes and CRT values.
    var n: String?
    var e: String?
    var p: String?
    var q: String?
    var dp: String?
    var dq: String?
    var qi: String?

    enum CodingKeys: String, CodingKey {
        case kty, kid, alg, use, k, crv, x, y, d, n, e, p, q, dp, dq, qi
        case keyOps = "key_ops"
    }

    /// The key as `/.well-known/jwks.json` publishes it, as GoTrue does: the public members only,
    /// `use: "sig"` and `key_ops: ["verify"]`. `nil` for a symmetric (`oct`) key, which has no
    /// public part and is never published.
    var publicKey: JSONWebKey? {
        switch kty {
        case "EC":
            return JSONWebKey(kty: kty, kid: kid, alg: alg, use: "sig", keyOps: ["verify"], crv: crv, x: x, y: y)
        case "RSA":
            return JSONWebKey(kty: kty, kid: kid, alg: alg, use: "sig", keyOps: ["verify"], n: n, e: e)
        default:
            return nil
        }
    }

    /// The key as compact JSON with sorted members.
    func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
