import Crypto
import Foundation
import LatchkeyWire

/// A key that checks the signatures of one JWS algorithm: the legacy HS256 secret or a
/// configured `oct` key, or the public part of a configured ES256 or RS256 key (or of an
/// identity provider's).
enum VerificationKey: Sendable {
    case hs256(SymmetricKey)
    case publicKey(JWSPublicKey)

    /// The `alg` a token checked with this key must name.
    var algorithm: String {
        switch self {
        case .hs256: "HS256"
        case .publicKey(let key): key.algorithm
        }
    }

    /// Whether `signature` is this key's signature of `signedPart` (the token's
    /// `header.payload`). HMACs are compared in constant time; the public keys check as
    /// ``JWSPublicKey/isValid(signature:for:)`` says.
    func isValid(signature: Data, for signedPart: Data) -> Bool {
        switch self {
        case .hs256(let key):
            return HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: signedPart, using: key)
        case .publicKey(let key):
            return key.isValid(signature: signature, for: signedPart)
        }
    }
}
