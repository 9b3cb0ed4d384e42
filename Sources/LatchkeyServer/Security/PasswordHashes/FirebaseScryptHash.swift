import Crypto
import Foundation
import _CryptoExtras

/// A password hash made by Firebase Authentication's modified scrypt, in GoTrue's text form:
/// `$fbscrypt$v=1,n=<log2 N>,r=<r>,p=<p>[,ss=<salt separator>][,sk=<signer key>]$<salt>$<hash>`,
/// every byte string in standard base64.
///
/// Firebase derives a 32-byte key with scrypt (the password; the user's salt followed by the
/// project's salt separator; N = 2^n, r, p) and encrypts the project's signer key with it in
/// AES-256-CTR from a zero counter block. The ciphertext is the hash. Parsing follows GoTrue's
/// `ParseFirebaseScryptHash`; on top of it the cost parameters are bounded, so that a stored
/// hash cannot make one sign-in take gigabytes of memory.
package struct FirebaseScryptHash: Sendable, Equatable {
    static let prefix = "$fbscrypt$"

    /// log2 of scrypt's N (Firebase's `mem_cost`).
    var memoryCost: Int
    /// scrypt's r (Firebase's `rounds`).
    var rounds: Int
    /// scrypt's p (always 1 at Firebase).
    var parallelism: Int
    var saltSeparator: [UInt8]
    var signerKey: [UInt8]
    var salt: [UInt8]
    var hash: [UInt8]

    /// The largest N accepted: 2^20.
    static let maximumMemoryCost = 20
    /// The largest r accepted (Firebase uses 8; swift-crypto's scrypt needs r ≤ 16 with p = 1).
    static let maximumRounds = 16
    static let maximumParallelism = 16
    /// The most memory one verification may use: 128 · N · r · p bytes.
    static let maximumMemoryBytes = 256 << 20

    init(
        memoryCost: Int, rounds: Int, parallelism: Int = 1, saltSeparator: [UInt8], signerKey: [UInt8], salt: [UInt8], hash: [UInt8]
    ) {
        self.memoryCost = memoryCost
        self.rounds = rounds
        self.parallelism = parallelism
        self.saltSeparator = saltSeparator
        self.signerKey = signerKey
        self.salt = salt
        self.hash = hash
    }

    /// Parses GoTrue's `$fbscrypt$` form; the error says which part is wrong (never the hash).
    init(parsing text: String) throws(PasswordHashError) {
        guard text.hasPrefix(Self.prefix) else { throw .malformed("a Firebase scrypt hash starts with $fbscrypt$") }
        let sections = text.dropFirst(Self.prefix.count).split(separator: "$", omittingEmptySubsequences: false)
        guard sections.count == 3, !sections[1].isEmpty, !sections[2].isEmpty else {
            throw .malformed("a Firebase scrypt hash is $fbscrypt$<parameters>$<salt>$<hash>")
        }
        var values: [String: String] = [:]
        for pair in sections[0].split(separator: ",", omittingEmptySubsequences: false) {
            guard let equals = pair.firstIndex(of: "=") else { throw .malformed("Firebase scrypt parameter '\(pair)' has no value") }
            values[String(pair[..<equals])] = String(pair[pair.index(after: equals)...])
        }
        guard values["v"] == "1" else { throw .malformed("Firebase scrypt hash uses an unsupported version; only v=1 is supported") }
        func count(_ name: String, maximum: Int) throws(PasswordHashError) -> Int {
            guard let value = values[name].flatMap({ Int($0) }), value > 0 else {
                throw .malformed("Firebase scrypt hash has an invalid \(name) parameter (a positive integer)")
            }
            guard value <= maximum else { throw .malformed("Firebase scrypt hash has \(name)=\(value), above the limit of \(maximum)") }
            return value
        }
        func bytes(_ text: String?, _ name: String) throws(PasswordHashError) -> [UInt8] {
            guard let text else { return [] }
            guard let data = Data(base64Encoded: text) else { throw .malformed("Firebase scrypt hash has invalid base64 in its \(name)") }
            return Array(data)
        }
        let known: Set = ["v", "n", "r", "p", "ss", "sk"]
        if let unknown = values.keys.sorted().first(where: { !known.contains($0) }) {
            throw .malformed("Firebase scrypt hash has an unknown parameter '\(unknown)'")
        }
        self.init(
            memoryCost: try count("n", maximum: Self.maximumMemoryCost), rounds: try count("r", maximum: Self.maximumRounds),
            parallelism: try count("p", maximum: Self.maximumParallelism), saltSeparator: try bytes(values["ss"], "salt separator"),
            signerKey: try bytes(values["sk"], "signer key"), salt: try bytes(String(sections[1]), "salt"),
            hash: try bytes(String(sections[2]), "hash"))
        guard !hash.isEmpty else { throw .malformed("Firebase scrypt hash is empty") }
        guard Self.fitsMemory(memoryCost: memoryCost, rounds: rounds, parallelism: parallelism) else {
            throw .malformed("Firebase scrypt hash needs more than \(Self.maximumMemoryBytes >> 20) MiB to verify")
        }
    }

    /// Whether a verification with these parameters (each within its own bound) needs at most
    /// ``maximumMemoryBytes``: 128 · 2^`memoryCost` · `rounds` · `parallelism` bytes.
    static func fitsMemory(memoryCost: Int, rounds: Int, parallelism: Int = 1) -> Bool {
        128 * (1 << memoryCost) * rounds * parallelism <= maximumMemoryBytes
    }

    /// GoTrue's text form of this hash.
    var text: String {
        var parameters = "v=1,n=\(memoryCost),r=\(rounds),p=\(parallelism)"
        if !saltSeparator.isEmpty { parameters += ",ss=\(Data(saltSeparator).base64EncodedString())" }
        if !signerKey.isEmpty { parameters += ",sk=\(Data(signerKey).base64EncodedString())" }
        return "\(Self.prefix)\(parameters)$\(Data(salt).base64EncodedString())$\(Data(hash).base64EncodedString())"
    }

    /// Firebase's hash of `password` with this hash's parameters, salt and signer key.
    func computed(for password: String) throws -> [UInt8] {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(password.utf8), salt: salt + saltSeparator, outputByteCount: 32, rounds: 1 << memoryCost, blockSize: rounds,
            parallelism: parallelism)
        return Array(try AES._CTR.encrypt(signerKey, using: key, nonce: AES._CTR.Nonce(nonceBytes: [UInt8](repeating: 0, count: 16))))
    }

    /// Whether `password` gives this hash, compared in constant time.
    func matches(_ password: String) throws -> Bool {
        constantTimeEquals(try computed(for: password), hash)
    }
}
