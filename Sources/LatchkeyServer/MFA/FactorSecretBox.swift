import Crypto
import Foundation

/// Encrypts TOTP secrets for storage: AES-256-GCM under a key derived (HKDF-SHA256) from the
/// server secret, bound to the factor's id as associated data, so a stored secret copied onto
/// another factor's row does not decrypt.
///
/// The stored form is `v1:` and the base64 of nonce, ciphertext and tag. A database copy alone
/// gives away no secret; the key never leaves memory and is never logged.
struct FactorSecretBox: Sendable {
    private let key: SymmetricKey

    /// The version prefix of the stored form.
    static let prefix = "v1:"

    init(jwtSecret: String) {
        key = HKDF<SHA256>.deriveKey(
            inputKeyMaterial: SymmetricKey(data: Data(jwtSecret.utf8)),
            info: Data("latchkey mfa totp secret v1".utf8),
            outputByteCount: 32)
    }

    /// The stored form of `secret` for factor `factorID`.
    func seal(_ secret: [UInt8], factorID: UUID) throws -> String {
        let box = try AES.GCM.seal(secret, using: key, authenticating: Self.associatedData(factorID))
        guard let combined = box.combined else { throw AuthError.unexpected }
        return Self.prefix + combined.base64EncodedString()
    }

    /// The secret of factor `factorID` from its stored form; `nil` when it does not decrypt
    /// (another server secret, another factor's row, or altered).
    func open(_ stored: String, factorID: UUID) -> [UInt8]? {
        guard stored.hasPrefix(Self.prefix), let combined = Data(base64Encoded: String(stored.dropFirst(Self.prefix.count))),
            let box = try? AES.GCM.SealedBox(combined: combined),
            let secret = try? AES.GCM.open(box, using: key, authenticating: Self.associatedData(factorID))
        else { return nil }
        return Array(secret)
    }

    private static func associatedData(_ factorID: UUID) -> Data {
        Data(("latchkey factor " + factorID.lowercasedString).utf8)
    }
}
