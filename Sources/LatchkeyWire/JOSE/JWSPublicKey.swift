import Crypto
import Foundation
import _CryptoExtras

/// A public key that checks the JWS signatures (RFC 7515) of one algorithm: ES256 or RS256.
/// The client checks access tokens with the keys its server publishes, the server checks
/// identity providers' ID tokens and its own asymmetric access tokens with them.
package enum JWSPublicKey: Sendable {
    case es256(P256.Signing.PublicKey)
    case rs256(_RSA.Signing.PublicKey)

    /// The `alg` a token checked with this key must name.
    package var algorithm: String {
        switch self {
        case .es256: "ES256"
        case .rs256: "RS256"
        }
    }

    /// Whether `signature` is this key's signature of `signedPart` (the token's
    /// `header.payload`): the 64-byte `r || s` form JWS uses for ES256, RSASSA-PKCS1-v1_5 with
    /// SHA-256 for RS256.
    package func isValid(signature: Data, for signedPart: Data) -> Bool {
        switch self {
        case .es256(let key):
            guard signature.count == 64, let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: signedPart)
        case .rs256(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: signedPart, padding: .insecurePKCS1v1_5)
        }
    }

    /// The key a published JWK stands for: an `EC` P-256 key for ES256, an `RSA` key of at least
    /// 2048 bits for RS256. `nil` when it cannot check signatures of either: another type or
    /// curve (a symmetric `oct` key above all, so that no token header ever makes a public key
    /// an HMAC secret), a key published for encryption (`use` other than `sig`), `key_ops`
    /// without `verify`, an `alg` of its own that is another algorithm, or members that are not
    /// a valid public key.
    package init?(_ jwk: JSONWebKey) {
        if let use = jwk.use, use != "sig" { return nil }
        if let operations = jwk.keyOps, !operations.contains("verify") { return nil }
        switch jwk.kty {
        case "EC":
            guard jwk.alg == nil || jwk.alg == "ES256", jwk.crv == "P-256",
                let x = jwk.x.flatMap(Base64URL.decode), let y = jwk.y.flatMap(Base64URL.decode), x.count == 32, y.count == 32,
                let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { return nil }
            self = .es256(key)
        case "RSA":
            guard jwk.alg == nil || jwk.alg == "RS256", let n = jwk.n.flatMap(Base64URL.decode), let e = jwk.e.flatMap(Base64URL.decode),
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { return nil }
            self = .rs256(key)
        default:
            return nil
        }
    }
}
