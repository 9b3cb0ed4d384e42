import Foundation

/// Encrypts TOTP secrets for storage (``SecretSealer``), each bound to its factor's id, so a
/// stored secret copied onto another factor's row does not decrypt.
struct FactorSecretBox: Sendable {
    private let sealer: SecretSealer

    init(jwtSecret: String) {
        sealer = SecretSealer(jwtSecret: jwtSecret, purpose: "latchkey mfa totp secret v1")
    }

    /// The stored form of `secret` for factor `factorID`.
    func seal(_ secret: [UInt8], factorID: UUID) throws -> String {
        try sealer.seal(secret, binding: Self.binding(factorID))
    }

    /// The secret of factor `factorID` from its stored form; `nil` when it does not decrypt
    /// (another server secret, another factor's row, or altered).
    func open(_ stored: String, factorID: UUID) -> [UInt8]? {
        sealer.open(stored, binding: Self.binding(factorID))
    }

    private static func binding(_ factorID: UUID) -> String {
        "latchkey factor " + factorID.lowercasedString
    }
}
