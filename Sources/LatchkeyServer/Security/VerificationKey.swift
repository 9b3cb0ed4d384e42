import Crypto
import Foundation
import _CryptoExtras

/// A key that checks the signatures of one JWS algorithm: the legacy HS256 secret, or a
/// configured JWT key's public (or `oct`) part.
enum VerificationKey: Sendable {
    case hs256(SymmetricKey)
    case es256(P256.Signing.PublicKey)
    case rs256(_RSA.Signing.PublicKey)

    /// The `alg` a token checked with this key must name.
    var algorithm: String {
        switch self {
        case .hs256: "HS256"
        case .es256: "ES256"
        case .rs256: "RS256"
        }
    }

    /// Whether `signature` is this key's signature of `signedPart` (the token's
    /// `header.payload`). HMACs are compared in constant time; an ES256 signature must be the
    /// 64-byte `r || s` form JWS uses; RS256 is RSASSA-PKCS1-v1_5 with SHA-256.
    func isValid(signature: Data, for signedPart: Data) -> Bool {
        switch self {
        case .hs256(let key):
            return HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signedPart, using: key)
        case .es256(let key):
            guard signature.count == 64, let ecdsa = try? P256.Signing.ECDSASignature(rawRepresentation: signature) else { return false }
            return key.isValidSignature(ecdsa, for: signedPart)
        case .rs256(let key):
            return key.isValidSignature(_RSA.Signing.RSASignature(rawRepresentation: signature), for: signedPart, padding: .insecurePKCS1v1_5)
        }
    }
}
