import Crypto
import Foundation
import HummingbirdBcrypt
import Testing
import _CryptoExtras

@testable import LatchkeyServer

/// Firebase's modified scrypt and the stored-hash forms GoTrue reads.
@Suite("Password hashes")
struct FirebaseScryptHashTests {
    /// The sample project parameters and account published in the README of Firebase's scrypt
    /// repository (github.com/firebase/scrypt).
    static let published = (
        signerKey: "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==",
        saltSeparator: "Bw==", rounds: 8, memoryCost: 14, salt: "42xEC+ixf3L2lw==", password: "user1password",
        hash: "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ=="
    )

    static var publishedText: String {
        let p = published
        return "$fbscrypt$v=1,n=\(p.memoryCost),r=\(p.rounds),p=1,ss=\(p.saltSeparator),sk=\(p.signerKey)$\(p.salt)$\(p.hash)"
    }

    @Test("Firebase's published example gives its published hash, and only for its password")
    func publishedExample() throws {
        let hash = try FirebaseScryptHash(parsing: Self.publishedText)
        #expect(Data(try hash.computed(for: Self.published.password)).base64EncodedString() == Self.published.hash)
        #expect(try hash.matches(Self.published.password))
        #expect(try !hash.matches("user1passwor"))
        #expect(try !hash.matches("user1password "))
        #expect(try !hash.matches(""))
        #expect(hash.text == Self.publishedText, "GoTrue's text form round-trips")
    }

    @Test("scrypt is RFC 7914's: its test vector with N as rounds and r as block size")
    func rfc7914Vector() throws {
        let key = try KDF.Scrypt.deriveKey(
            from: Array("password".utf8), salt: Array("NaCl".utf8), outputByteCount: 64, rounds: 1024, blockSize: 8, parallelism: 16)
        let hex = key.withUnsafeBytes { $0.map { String(format: "%02x", $0) }.joined() }
        #expect(
            hex
                == "fdbabe1c9d3472007856e7190d01e9fe7c6ad7cbc8237830e77376634b3731622eaf30d92e22a3886ff109279d9830dac727afb94a83ee6d8360cbdfa2cc0640"
        )
    }

    @Test("GoTrue's parser rules: version 1, positive n, r, p, base64 parts; bounded cost")
    func parsingRules() throws {
        let (salt, hash) = (Self.published.salt, Self.published.hash)
        let refused = [
            "$fbscrypt$v=2,n=14,r=8,p=1$\(salt)$\(hash)",
            "$fbscrypt$v=1,n=0,r=8,p=1$\(salt)$\(hash)",
            "$fbscrypt$v=1,n=14,r=0,p=1$\(salt)$\(hash)",
            "$fbscrypt$v=1,n=14,r=8,p=0$\(salt)$\(hash)",
            "$fbscrypt$v=1,n=14,r=8$\(salt)$\(hash)",
            "$fbscrypt$v=1,n=x,r=8,p=1$\(salt)$\(hash)",
            "$fbscrypt$v=1,n=32,r=8,p=1$\(salt)$\(hash)",
            "$fbscrypt$v=1,n=20,r=16,p=16$\(salt)$\(hash)",
            "$fbscrypt$v=1,n=14,r=8,p=1,ss=***$\(salt)$\(hash)",
            "$fbscrypt$v=1,n=14,r=8,p=1,zz=1$\(salt)$\(hash)",
            "$fbscrypt$v=1,n=14,r=8,p=1$\(salt)$",
            "$fbscrypt$v=1,n=14,r=8,p=1$\(salt)",
            "$fbscrypt$v=1,n=14,r=8,p=1$not base64!$\(hash)",
        ]
        for text in refused {
            #expect(throws: PasswordHashError.self, "\(text)") { try FirebaseScryptHash(parsing: text) }
        }
        // Salt separator and signer key are optional, as in GoTrue's pattern.
        let bare = try FirebaseScryptHash(parsing: "$fbscrypt$v=1,n=14,r=8,p=1$\(salt)$\(hash)")
        #expect(bare.saltSeparator.isEmpty && bare.signerKey.isEmpty && bare.memoryCost == 14 && bare.rounds == 8)
    }

    @Test("stored hashes: bcrypt $2a$ $2b$ $2y$, Firebase scrypt and argon2id are read, argon2d is unsupported, anything else malformed")
    func storedForms() throws {
        let bcrypt = Bcrypt.hash("pw", cost: 4)
        #expect(bcrypt.hasPrefix("$2b$04$"))
        for prefix in ["$2a$", "$2b$", "$2y$"] {
            let text = prefix + bcrypt.dropFirst(4)
            #expect(try StoredPasswordHash(parsing: text) == .bcrypt(text, cost: 4))
        }
        #expect(try StoredPasswordHash(parsing: Self.publishedText) == .firebaseScrypt(try FirebaseScryptHash(parsing: Self.publishedText)))
        let argon2id = "$argon2id$v=19$m=16,t=2,p=1$c29tZXNhbHQ$ZmFrZWhhc2g"
        #expect(try StoredPasswordHash(parsing: argon2id) == .argon2(try Argon2Hash(parsing: argon2id)))
        let argon = "$argon2d$v=19$m=16,t=2,p=1$c29tZXNhbHQ$ZmFrZWhhc2g"
        let refusal = #expect(throws: PasswordHashError.self) { try StoredPasswordHash(parsing: argon) }
        guard case .unsupported(let reason) = refusal else {
            Issue.record("argon2d is not refused as unsupported: \(String(describing: refusal))")
            return
        }
        #expect(reason.contains("argon2") && !reason.contains(argon))
        for text in ["", "plain", "$2x$04$" + bcrypt.dropFirst(7), "$2b$03$" + bcrypt.dropFirst(7), "$2b$04$" + bcrypt.dropFirst(8), "$1$abc$def"] {
            #expect(throws: PasswordHashError.self, "\(text)") { try StoredPasswordHash(parsing: text) }
        }
    }

    @Test("the hasher verifies each form, says which need re-hashing, and fails unknown or unreadable hashes")
    func hasherChecks() async throws {
        let hasher = PasswordHasher(cost: 4, threads: 1)
        let own = try await hasher.hash("secret one")
        #expect(try await hasher.check("secret one", against: own) == PasswordCheck(matches: true, needsRehash: false))
        #expect(try await hasher.check("secret two", against: own) == PasswordCheck(matches: false, needsRehash: false))
        let php = "$2y$" + own.dropFirst(4)
        #expect(try await hasher.check("secret one", against: php) == PasswordCheck(matches: true, needsRehash: false))
        #expect(try await hasher.check("secret two", against: php).matches == false)
        let costlier = Bcrypt.hash("secret one", cost: 5)
        #expect(try await hasher.check("secret one", against: costlier) == PasswordCheck(matches: true, needsRehash: true))
        let p = Self.published
        #expect(try await hasher.check(p.password, against: Self.publishedText) == PasswordCheck(matches: true, needsRehash: true))
        #expect(try await hasher.check("wrong", against: Self.publishedText) == PasswordCheck(matches: false, needsRehash: false))
        #expect(try await hasher.check(p.password, against: nil).matches == false)
        #expect(try await hasher.check(p.password, against: "$argon2id$v=19$m=16,t=2,p=1$c29tZXNhbHQ$ZmFrZWhhc2g").matches == false)
        #expect(try await hasher.check("", against: "garbage").matches == false)
        try await hasher.shutdown()
    }
}
