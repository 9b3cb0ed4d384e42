/// Why a password hash given to the server (`POST /admin/users`' `password_hash`, an import)
/// cannot be stored. The text names the problem, never the hash.
enum PasswordHashError: Error, Sendable, Equatable {
    /// Not a hash in any form the server reads, or one whose parameters are out of bounds.
    case malformed(String)
    /// A well-formed hash of an algorithm this server cannot verify.
    case unsupported(String)
}

/// A password hash as stored in `users.password_hash`: the server's own bcrypt, or one brought
/// from another system and kept until the user's first successful sign-in re-hashes it.
///
/// The prefixes are GoTrue's: `$argon2…` is Argon2i or Argon2id (``Argon2Hash``), `$fbscrypt$`
/// is Firebase's scrypt, anything else must be bcrypt.
enum StoredPasswordHash: Sendable, Equatable {
    /// `$2a$`, `$2b$` or `$2y$` with its cost (`$2y$` is PHP's name for the same algorithm as `$2b$`).
    case bcrypt(String, cost: Int)
    case firebaseScrypt(FirebaseScryptHash)
    case argon2(Argon2Hash)

    init(parsing text: String) throws(PasswordHashError) {
        if text.hasPrefix(Argon2Hash.prefix) {
            guard Argon2Hash.isAvailable else {
                throw .unsupported("argon2 password hashes are not supported by this build of the server (built without libargon2)")
            }
            self = .argon2(try Argon2Hash(parsing: text))
            return
        }
        if text.hasPrefix(FirebaseScryptHash.prefix) {
            self = .firebaseScrypt(try FirebaseScryptHash(parsing: text))
            return
        }
        self = try Self.bcrypt(text)
    }

    /// The highest bcrypt cost accepted from another system (`POST /admin/users`' `password_hash`,
    /// an import). Each step doubles the work: cost 14 is 16 times bcrypt's usual 10 (about a
    /// second of one core here), more than any common system stores, while cost 31 would hold a
    /// core for days per wrong password. A server whose own `--bcrypt-cost` is higher accepts up
    /// to its own.
    static let maximumImportedBcryptCost = 14

    /// Parses a hash brought from another system, refusing costs a sign-in cannot afford: a
    /// bcrypt cost above ``maximumImportedBcryptCost`` (or `nativeCost`, if higher). Firebase
    /// scrypt is bounded by its parser.
    init(importing text: String, nativeCost: Int = 0) throws(PasswordHashError) {
        self = try Self(parsing: text)
        if case .bcrypt(_, let cost) = self, !Self.isAffordable(bcryptCost: cost, nativeCost: nativeCost) {
            throw .malformed(
                "bcrypt hash has cost \(cost); imported bcrypt hashes may have a cost of at most \(Self.maximumImportedBcryptCost)")
        }
    }

    /// Whether a bcrypt hash of `bcryptCost` may be verified at sign-in on a server hashing at `nativeCost`.
    static func isAffordable(bcryptCost: Int, nativeCost: Int) -> Bool {
        bcryptCost <= max(maximumImportedBcryptCost, nativeCost)
    }

    /// A bcrypt hash in modular crypt form: `$2a$`, `$2b$` or `$2y$`, a two-digit cost from 4 to
    /// 31, then 53 characters of bcrypt's base64 (22 of salt, 31 of hash).
    private static func bcrypt(_ text: String) throws(PasswordHashError) -> StoredPasswordHash {
        let bytes = Array(text.utf8)
        let alphabet = Set("./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)
        guard bytes.count == 60, bytes[0] == UInt8(ascii: "$"), bytes[1] == UInt8(ascii: "2"),
            [UInt8(ascii: "a"), UInt8(ascii: "b"), UInt8(ascii: "y")].contains(bytes[2]), bytes[3] == UInt8(ascii: "$"),
            bytes[6] == UInt8(ascii: "$"), let cost = Int(String(decoding: bytes[4..<6], as: UTF8.self)),
            bytes[7...].allSatisfy(alphabet.contains)
        else {
            throw .malformed("password_hash is not a bcrypt ($2a$, $2b$, $2y$), Firebase scrypt ($fbscrypt$) or argon2 hash")
        }
        guard (4...31).contains(cost) else { throw .malformed("bcrypt hash has cost \(cost); bcrypt costs are 4 to 31") }
        return .bcrypt(text, cost: cost)
    }

    /// The bcrypt hash in the form the bcrypt verifier reads (`$2y$` as `$2b$`); `nil` for
    /// another algorithm.
    var bcryptForVerification: String? {
        guard case .bcrypt(let text, _) = self else { return nil }
        return text.hasPrefix("$2y$") ? "$2b$" + text.dropFirst(4) : text
    }
}
