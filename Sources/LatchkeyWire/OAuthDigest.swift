import Crypto
import Foundation

/// The digests OAuth 2.0 and OpenID Connect put in requests and tokens, written once for the
/// client that makes them, the server that checks them and the test identity provider.
package enum OAuthDigest {
    /// The PKCE `S256` challenge of `verifier` (RFC 7636 §4.2): `BASE64URL(SHA256(verifier))`.
    package static func pkceChallenge(for verifier: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(verifier.utf8))))
    }

    /// The `nonce` an ID token carries for the raw nonce the app keeps (Sign in with Apple,
    /// Google Sign-In and GoTrue's rule): `SHA256(raw)` in lowercase hexadecimal.
    package static func hashedNonce(_ raw: String) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var hex: [UInt8] = []
        hex.reserveCapacity(64)
        for byte in SHA256.hash(data: Data(raw.utf8)) {
            hex.append(digits[Int(byte >> 4)])
            hex.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: hex, as: UTF8.self)
    }

    /// An ID token's `at_hash` for `accessToken` (OpenID Connect Core §3.1.3.6, for ES256 and
    /// RS256): the left half of the token's SHA-256, base64url.
    package static func accessTokenHash(_ accessToken: String) -> String {
        Base64URL.encode(Data(SHA256.hash(data: Data(accessToken.utf8))).prefix(16))
    }
}
