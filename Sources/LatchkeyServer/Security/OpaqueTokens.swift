import Crypto
import Foundation
import LatchkeyWire

/// Creates and hashes the opaque secrets Latchkey hands out: refresh tokens and email-link tokens.
///
/// Refresh tokens are 256-bit. A rotated token is derived from its parent with an HMAC under a
/// server key (``successor(of:)``), so the server can recompute the active token of a session
/// from a spent one — which is how a client that lost a refresh response gets the same session
/// back — while storing nothing but SHA-256 hashes.
///
/// Emailed one-time codes are short (six digits), so their stored form is keyed as well
/// (``codeHash(_:address:)``): a copy of the database alone does not give away live codes.
struct OpaqueTokens: Sendable {
    private let rotationKey: SymmetricKey
    private let codeKey: SymmetricKey
    private let formKey: SymmetricKey
    /// Seals TOTP secrets for storage, under a key of its own derived from the same secret.
    let factorSecrets: FactorSecretBox
    /// Seals custom providers' client secrets.
    let providerSecrets: SecretSealer
    /// Seals a provider's answer into the page that asks to confirm an identity link.
    let pendingLinks: SecretSealer
    /// Seals the refresh tokens identity providers give (Apple's, kept to revoke them).
    let providerRefreshTokens: SecretSealer

    init(jwtSecret: String) {
        self.rotationKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(jwtSecret.utf8)),
            info: Data("latchkey refresh-token rotation v1".utf8),
            outputByteCount: 32)
        self.codeKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(jwtSecret.utf8)),
            info: Data("latchkey email code v1".utf8),
            outputByteCount: 32)
        self.formKey = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(jwtSecret.utf8)),
            info: Data("latchkey hosted page form v1".utf8),
            outputByteCount: 32)
        self.factorSecrets = FactorSecretBox(jwtSecret: jwtSecret)
        self.providerSecrets = SecretSealer(jwtSecret: jwtSecret, purpose: "latchkey custom provider client secret v1")
        self.pendingLinks = SecretSealer(jwtSecret: jwtSecret, purpose: "latchkey pending identity link v1")
        self.providerRefreshTokens = SecretSealer(jwtSecret: jwtSecret, purpose: "latchkey provider refresh token v1")
    }

    /// A MAC over `text` under the hosted pages' form key (``HostedPages``' tickets and CSRF
    /// fields), base64url.
    func formMAC(_ text: String) -> String {
        Base64URL.encode(Data(HMAC<SHA256>.authenticationCode(for: Data(text.utf8), using: formKey)))
    }

    /// A random numeric code of `length` digits, uniformly distributed (leading zeros kept).
    static func randomCode(length: Int = 6) -> String {
        var generator = SystemRandomNumberGenerator()
        return String((0..<length).map { _ in Character(String(Int.random(in: 0...9, using: &generator))) })
    }

    /// The stored form of an emailed code: an HMAC over the address and the code, so a code is
    /// good only for the address it was sent to.
    func codeHash(_ code: String, address: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data((address + "\u{0}" + code).utf8), using: codeKey)
        return Array(mac).hexString
    }

    /// A fresh random token of `byteCount` random bytes, base64url without padding.
    static func random(byteCount: Int = 32) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<byteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Base64URL.encode(bytes)
    }

    /// The token that replaces `parent` when it is rotated.
    func successor(of parent: String) -> String {
        let mac = HMAC<SHA256>.authenticationCode(for: Data(parent.utf8), using: rotationKey)
        return Base64URL.encode(Data(mac))
    }

    /// The stored form of a token: lowercase hex SHA-256.
    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).hexString
    }
}

extension Sequence where Element == UInt8 {
    var hexString: String {
        var result = ""
        result.reserveCapacity(64)
        for byte in self {
            result += String(byte, radix: 16).leftPadded(to: 2)
        }
        return result
    }
}

extension SHA256.Digest {
    var hexString: String { Array(self).hexString }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        count >= length ? self : String(repeating: "0", count: length - count) + self
    }
}
