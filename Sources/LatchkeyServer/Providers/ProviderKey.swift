import Crypto
import Foundation
import LatchkeyWire
import _CryptoExtras

extension JSONWebKey {
    /// The key an identity provider publishes in its JWKS, as a key that checks `alg`
    /// signatures: `RSA` keys of at least 2048 bits for RS256, `EC` P-256 keys for ES256.
    ///
    /// `nil` when the key cannot check `alg`: another type or curve, a key published for
    /// encryption (`use: "enc"`), a key whose own `alg` is another algorithm, or members that
    /// are not a valid public key. So a token's header never makes an RSA key an HMAC secret.
    func providerVerificationKey(for alg: String) -> VerificationKey? {
        if let use, use != "sig" { return nil }
        if let own = self.alg, own != alg { return nil }
        switch (alg, kty) {
        case ("RS256", "RSA"):
            guard let n = n.flatMap(Base64URL.decode), let e = e.flatMap(Base64URL.decode),
                let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { return nil }
            return .rs256(key)
        case ("ES256", "EC"):
            guard crv == "P-256", let x = x.flatMap(Base64URL.decode), let y = y.flatMap(Base64URL.decode), x.count == 32, y.count == 32,
                let key = try? P256.Signing.PublicKey(rawRepresentation: x + y)
            else { return nil }
            return .es256(key)
        default:
            return nil
        }
    }
}
