import ArgumentParser
import Foundation
import LatchkeyServer

/// `latchkey keys generate`: prints a new private JWK for the server's JWT keys
/// (`--jwt-keys`, `LATCHKEY_JWT_KEYS`, GoTrue's `GOTRUE_JWT_KEYS`). Writes no file.
struct KeysGenerateCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "generate",
        abstract: "Print a new private signing key (a JWK) to add to the server's --jwt-keys.",
        discussion: """
            Prints one JSON object on standard output: a fresh key with a fresh kid (a UUID), "use": "sig" and \\
            "key_ops": ["sign", "verify"] (["verify"] with --verify-only, for a key published before it signs). \\
            Add it to the JSON array in LATCHKEY_JWT_KEYS (or GOTRUE_JWT_KEYS, or --jwt-keys-file); exactly one \\
            key of the array may sign. The key is private: keep it out of logs and version control. Writes no file.
            """)

    @Option(name: .customLong("alg"), help: "ES256 (ECDSA P-256, the default), RS256 (RSA 2048) or HS256 (a shared secret, never published).")
    var algorithm: String = JWTKeySet.Algorithm.es256.rawValue
    @Flag(name: .customLong("verify-only"), help: "key_ops [\"verify\"]: a standby key, published in /.well-known/jwks.json before it signs.")
    var verifyOnly = false

    func validate() throws {
        guard JWTKeySet.Algorithm(rawValue: algorithm.uppercased()) != nil else {
            throw ValidationError("--alg must be ES256, RS256 or HS256")
        }
    }

    func run() throws {
        let algorithm = JWTKeySet.Algorithm(rawValue: algorithm.uppercased()) ?? .es256
        print(try JWTKeySet.generateKey(algorithm, signs: !verifyOnly))
    }
}
