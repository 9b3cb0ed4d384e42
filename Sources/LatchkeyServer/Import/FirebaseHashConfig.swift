import Foundation

/// A Firebase project's password hash parameters, as the console's "Password hash parameters"
/// shows them:
///
/// ```
/// hash_config {
///   algorithm: SCRYPT,
///   base64_signer_key: …,
///   base64_salt_separator: Bw==,
///   rounds: 8,
///   mem_cost: 14,
/// }
/// ```
///
/// The same names in a JSON object are read too, and so are `firebase auth:import`'s
/// (`hash_key`, `salt_separator`, `rounds`, `mem_cost`) and the Admin SDK's (`signerKey`,
/// `saltSeparator`, `memoryCost`). Error messages name a parameter, never its value.
package struct FirebaseHashConfig: Sendable, Equatable {
    package var signerKey: [UInt8]
    package var saltSeparator: [UInt8]
    package var rounds: Int
    package var memoryCost: Int

    package init(signerKey: [UInt8], saltSeparator: [UInt8], rounds: Int, memoryCost: Int) {
        self.signerKey = signerKey
        self.saltSeparator = saltSeparator
        self.rounds = rounds
        self.memoryCost = memoryCost
    }

    package struct Invalid: Error, Sendable, Equatable, CustomStringConvertible {
        package var description: String
    }

    /// Reads the console's text or a JSON object: `name: value` pairs separated by commas or
    /// line breaks, quotes and braces ignored (base64 has none of these characters).
    package init(parsing text: String) throws(Invalid) {
        var values: [String: String] = [:]
        let cleaned = text.replacingOccurrences(of: "hash_config", with: "")
            .filter { !"{}\"'".contains($0) }
        for part in cleaned.split(whereSeparator: { $0 == "," || $0.isNewline }) {
            guard let colon = part.firstIndex(of: ":") ?? part.firstIndex(of: "=") else {
                if part.trimmingCharacters(in: .whitespaces).isEmpty { continue }
                throw Invalid(description: "hash config: a line is not 'name: value'")
            }
            let name = part[..<colon].trimmingCharacters(in: .whitespaces).lowercased().replacingOccurrences(of: "_", with: "")
                .replacingOccurrences(of: "-", with: "")
            values[name] = part[part.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        func value(_ names: [String]) -> String? { names.lazy.compactMap { values[$0] }.first }
        if let algorithm = value(["algorithm", "hashalgo"]), algorithm.uppercased() != "SCRYPT" {
            throw Invalid(description: "hash config: algorithm \(algorithm) is not Firebase's SCRYPT")
        }
        try self.init(
            signerKey: value(["base64signerkey", "signerkey", "hashkey"]), saltSeparator: value(["base64saltseparator", "saltseparator"]),
            rounds: value(["rounds"]), memoryCost: value(["memcost", "memorycost"]))
    }

    /// The parameters from their text forms (base64 keys, decimal numbers), as flags give them.
    package init(signerKey: String?, saltSeparator: String?, rounds: String?, memoryCost: String?) throws(Invalid) {
        guard let signerKey, let key = Data(base64Encoded: signerKey), !key.isEmpty else {
            throw Invalid(description: "hash config: base64_signer_key is missing or not base64")
        }
        guard let separator = Data(base64Encoded: saltSeparator ?? "") else {
            throw Invalid(description: "hash config: base64_salt_separator is not base64")
        }
        guard let rounds = rounds.flatMap({ Int($0) }), (1...FirebaseScryptHash.maximumRounds).contains(rounds) else {
            throw Invalid(description: "hash config: rounds must be 1 to \(FirebaseScryptHash.maximumRounds)")
        }
        guard let memoryCost = memoryCost.flatMap({ Int($0) }), (1...FirebaseScryptHash.maximumMemoryCost).contains(memoryCost) else {
            throw Invalid(description: "hash config: mem_cost must be 1 to \(FirebaseScryptHash.maximumMemoryCost)")
        }
        // The bound a sign-in checks: a config beyond it would import passwords that never verify.
        guard FirebaseScryptHash.fitsMemory(memoryCost: memoryCost, rounds: rounds) else {
            throw Invalid(
                description:
                    "hash config: mem_cost \(memoryCost) with rounds \(rounds) needs more than \(FirebaseScryptHash.maximumMemoryBytes >> 20) MiB to verify a password (128 · 2^mem_cost · rounds bytes)"
            )
        }
        self.init(signerKey: Array(key), saltSeparator: Array(separator), rounds: rounds, memoryCost: memoryCost)
    }

    /// The stored form of an exported account's password: its base64 `passwordHash` and `salt`
    /// with these parameters. `nil` when either is not base64 or the hash is empty.
    package func hash(passwordHash: String, salt: String) -> FirebaseScryptHash? {
        guard let hash = Data(base64Encoded: passwordHash), !hash.isEmpty, let salt = Data(base64Encoded: salt) else { return nil }
        return FirebaseScryptHash(
            memoryCost: memoryCost, rounds: rounds, saltSeparator: saltSeparator, signerKey: signerKey, salt: Array(salt), hash: Array(hash))
    }
}
