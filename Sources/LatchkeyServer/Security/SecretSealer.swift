import Crypto
import Foundation

/// Encrypts secrets the server must read back (TOTP secrets, providers' client secrets) for
/// storage: AES-256-GCM under a key derived (HKDF-SHA256) from the server secret for one
/// purpose, bound to the row's identity as associated data, so a stored secret copied onto
/// another row does not decrypt.
///
/// The stored form is `v1:` and the base64 of nonce, ciphertext and tag. A database copy alone
/// gives away no secret; the key never leaves memory and is never logged.
struct SecretSealer: Sendable {
    private let key: SymmetricKey

    /// The version prefix of the stored form.
    static let prefix = "v1:"

    /// - Parameter purpose: what the key is for (HKDF `info`): each purpose has its own key.
    init(jwtSecret: String, purpose: String) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(jwtSecret.utf8)), info: Data(purpose.utf8), outputByteCount: 32)
    }

    /// The stored form of `secret` for the row `binding` names.
    func seal(_ secret: [UInt8], binding: String) throws -> String {
        let box = try AES.GCM.seal(secret, using: key, authenticating: Data(binding.utf8))
        guard let combined = box.combined else { throw AuthError.unexpected }
        return Self.prefix + combined.base64EncodedString()
    }

    /// The secret from its stored form; `nil` when it does not decrypt (another server secret,
    /// another row, or altered).
    func open(_ stored: String, binding: String) -> [UInt8]? {
        guard stored.hasPrefix(Self.prefix), let combined = Data(base64Encoded: String(stored.dropFirst(Self.prefix.count))),
            let box = try? AES.GCM.SealedBox(combined: combined),
            let secret = try? AES.GCM.open(box, using: key, authenticating: Data(binding.utf8))
        else { return nil }
        return Array(secret)
    }
}
