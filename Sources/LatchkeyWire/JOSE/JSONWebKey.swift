import Foundation

/// A JSON Web Key (RFC 7517, RFC 7518 §6): the server's configured keys (`GOTRUE_JWT_KEYS`,
/// private members included), the keys it publishes at `/.well-known/jwks.json`, and the keys
/// clients and the server read from a JWKS to check signatures.
///
/// Only the members Latchkey reads or writes: the key's identity (`kty`, `kid`, `alg`, `use`,
/// `key_ops`) and the members of `oct`, `EC` (P-256) and `RSA` keys. Unknown members are
/// ignored when decoding. Encoding leaves out members that are `nil`.
package struct JSONWebKey: Codable, Sendable, Equatable {
    package var kty: String?
    package var kid: String?
    package var alg: String?
    package var use: String?
    package var keyOps: [String]?
    /// `oct`: the secret.
    package var k: String?
    /// `EC`: the curve and the public point.
    package var crv: String?
    package var x: String?
    package var y: String?
    /// `EC` and `RSA`: the private exponent.
    package var d: String?
    /// `RSA`: the modulus and public exponent, then the private key's primes and CRT values.
    package var n: String?
    package var e: String?
    package var p: String?
    package var q: String?
    package var dp: String?
    package var dq: String?
    package var qi: String?

    enum CodingKeys: String, CodingKey {
        case kty, kid, alg, use, k, crv, x, y, d, n, e, p, q, dp, dq, qi
        case keyOps = "key_ops"
    }

    /// A key with its identity; set the members of its type afterwards.
    package init(kty: String? = nil, kid: String? = nil, alg: String? = nil, use: String? = nil, keyOps: [String]? = nil) {
        (self.kty, self.kid, self.alg, self.use, self.keyOps) = (kty, kid, alg, use, keyOps)
    }
}

/// A JWKS document, `{"keys": [...]}`, read leniently: a member that is not a JWK this type can
/// read (not an object, or members of the wrong type) is left out, so one key a reader cannot
/// use never hides the others. A document without a `keys` array does not decode.
package struct JSONWebKeySet: Decodable, Sendable {
    package var keys: [JSONWebKey]

    private enum CodingKeys: String, CodingKey { case keys }

    /// One member of `keys`, `nil` when it is not a readable JWK.
    private struct Member: Decodable {
        var key: JSONWebKey?
        init(from decoder: any Decoder) throws { key = try? JSONWebKey(from: decoder) }
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        keys = try container.decode([Member].self, forKey: .keys).compactMap(\.key)
    }
}
