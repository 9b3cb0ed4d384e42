import Foundation
import LatchkeyTestSupport
import Testing

@testable import LatchkeyServer

/// Hashes made by PyPI's `firebase-scrypt`, which nobody here wrote, verify here; other
/// passwords do not.
@Suite("Firebase scrypt against an independent implementation")
struct FirebaseScryptPeerTests {
    @Test(
        "firebase-scrypt's hashes verify for their passwords only, over several parameter sets",
        .enabled(if: FirebaseScryptPeer.isAvailable, Comment(rawValue: FirebaseScryptPeer.skipReason)),
        arguments: [(rounds: 8, memoryCost: 14), (rounds: 1, memoryCost: 10), (rounds: 4, memoryCost: 12)])
    func peerHashes(parameters: (rounds: Int, memoryCost: Int)) async throws {
        let signerKey = FirebaseScryptPeer.randomBase64(count: 64)
        let separator = FirebaseScryptPeer.randomBase64(count: 1)
        let passwords = ["correct horse battery", "ünïcödé 🔑 pass", "x", String(repeating: "long", count: 18)]
        let salts = passwords.map { _ in FirebaseScryptPeer.randomBase64(count: 12) }
        let hashes = try await FirebaseScryptPeer.hashes(
            zip(passwords, salts).map { ($0, $1) }, signerKey: signerKey, saltSeparator: separator, rounds: parameters.rounds,
            memoryCost: parameters.memoryCost)
        let config = try FirebaseHashConfig(
            signerKey: signerKey, saltSeparator: separator, rounds: "\(parameters.rounds)", memoryCost: "\(parameters.memoryCost)")
        for index in passwords.indices {
            let stored = try #require(config.hash(passwordHash: hashes[index], salt: salts[index]))
            #expect(try stored.matches(passwords[index]))
            #expect(try !stored.matches(passwords[(index + 1) % passwords.count]))
            #expect(try StoredPasswordHash(parsing: stored.text) == .firebaseScrypt(stored), "GoTrue's form round-trips")
        }
    }
}
