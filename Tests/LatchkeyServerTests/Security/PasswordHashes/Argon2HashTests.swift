import Foundation
import HummingbirdBcrypt
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// Argon2i and Argon2id password hashes (GoTrue's `$argon2…` form), checked with libargon2:
/// RFC 9106's test vectors, GoTrue's parsing rules, and this server's cost limits.
@Suite("Argon2 password hashes")
struct Argon2HashTests {
    static func bytes(_ value: UInt8, _ count: Int) -> [UInt8] { [UInt8](repeating: value, count: count) }

    static func hex(_ text: String) -> [UInt8] {
        let digits = Array(text.filter { !$0.isWhitespace })
        return stride(from: 0, to: digits.count, by: 2).map { UInt8(String(digits[$0...$0 + 1]), radix: 16)! }
    }

    @Test("RFC 9106 section 5's Argon2i and Argon2id test vectors (version 19, 32 KiB, 3 passes, 4 lanes, secret and associated data)")
    func rfc9106Vectors() throws {
        let vectors: [(Argon2Hash.Variant, String)] = [
            (.argon2i, "c8 14 d9 d1 dc 7f 37 aa 13 f0 d7 7f 24 94 bd a1 c8 de 6b 01 6d d3 88 d2 99 52 a4 c4 67 2b 6c e8"),
            (.argon2id, "0d 64 0d f5 8d 78 76 6c 08 c0 37 a3 4a 8b 53 c9 d0 1e f0 45 2d 75 b6 5e b5 25 20 e9 6b 01 e6 59"),
        ]
        for (variant, tag) in vectors {
            let derived = try Argon2Hash.derive(
                variant, password: Self.bytes(1, 32), salt: Self.bytes(2, 16), secret: Self.bytes(3, 8), associatedData: Self.bytes(4, 12),
                memoryKiB: 32, iterations: 3, parallelism: 4, length: 32)
            #expect(derived == Self.hex(tag), "\(variant)")
        }
    }

    @Test("a hash in GoTrue's form is read back to the same text and matches only its password")
    func parsesAndMatches() throws {
        let salt = Array("somesaltSOMESALT".utf8)
        let output = try Argon2Hash.derive(
            .argon2id, password: Array("hunter2".utf8), salt: salt, memoryKiB: 64, iterations: 2, parallelism: 2, length: 32)
        let hash = Argon2Hash(variant: .argon2id, memoryKiB: 64, iterations: 2, parallelism: 2, salt: salt, hash: output)
        let parsed = try Argon2Hash(parsing: hash.text)
        #expect(parsed == hash)
        #expect(hash.text.hasPrefix("$argon2id$v=19$m=64,t=2,p=2$") && !hash.text.hasSuffix("="))
        #expect(try parsed.matches("hunter2"))
        #expect(try !parsed.matches("hunter3"))
        #expect(try !parsed.matches(""))
        // Padded base64 is read too.
        let padded = "$argon2id$v=19$m=64,t=2,p=2$\(Data(salt).base64EncodedString())$\(Data(output).base64EncodedString())"
        #expect(padded.hasSuffix("="))
        #expect(try Argon2Hash(parsing: padded) == hash)
    }

    @Test("refused: argon2d, version 16, keyid and data, costs above the limits, short salts (422 class); unreadable text (400 class)")
    func refusals() {
        let salt = "c29tZXNhbHRzb21lc2FsdA"  // 16 bytes
        let hash = "aGFzaGhhc2hoYXNoaGFzaA"
        func parse(_ text: String) -> PasswordHashError? {
            do {
                _ = try Argon2Hash(parsing: text)
                return nil
            } catch { return error }
        }
        let unsupported = [
            "$argon2d$v=19$m=64,t=2,p=1$\(salt)$\(hash)",
            "$argon2id$v=16$m=64,t=2,p=1$\(salt)$\(hash)",
            "$argon2id$v=19$m=64,t=2,p=1,keyid=abc$\(salt)$\(hash)",
            "$argon2id$v=19$m=64,t=2,p=1,data=abc$\(salt)$\(hash)",
            "$argon2id$v=19$m=\(Argon2Hash.maximumMemoryKiB + 1),t=1,p=1$\(salt)$\(hash)",
            "$argon2id$v=19$m=1048576,t=2,p=1$\(salt)$\(hash)",
            "$argon2id$v=19$m=64,t=\(Argon2Hash.maximumIterations + 1),p=1$\(salt)$\(hash)",
            "$argon2id$v=19$m=512,t=2,p=\(Argon2Hash.maximumParallelism + 1)$\(salt)$\(hash)",
            "$argon2id$v=19$m=131072,t=10,p=1$\(salt)$\(hash)",  // 128 MiB × 10 passes: above the work limit
            "$argon2id$v=19$m=64,t=2,p=1$c2FsdA$\(hash)",  // a 4-byte salt
        ]
        for text in unsupported {
            guard case .unsupported(let reason)? = parse(text) else {
                Issue.record("not refused as unsupported: \(text) → \(String(describing: parse(text)))")
                continue
            }
            #expect(!reason.contains(salt) && !reason.contains(hash), "the reason never repeats the hash: \(reason)")
        }
        #expect(parse("$argon2id$v=19$m=1048576,t=2,p=1$\(salt)$\(hash)").map { "\($0)" }?.contains("limit") == true)
        let malformed = [
            "$argon2id$m=64,t=2,p=1$\(salt)$\(hash)",
            "$argon2id$v=19$m=64,t=2$\(salt)$\(hash)",
            "$argon2id$v=19$m=64,t=2,p=1,x=1$\(salt)$\(hash)",
            "$argon2id$v=19$m=0,t=2,p=1$\(salt)$\(hash)",
            "$argon2id$v=19$m=-5,t=2,p=1$\(salt)$\(hash)",
            "$argon2id$v=19$m=16,t=2,p=4$\(salt)$\(hash)",  // under 8 KiB per lane
            "$argon2id$v=19$m=64,t=2,p=1$\(salt)$!!!",
            "$argon2id$v=19$m=64,t=2,p=1$\(salt)$",
            "$argon2id$v=19$m=64,t=2,p=1$\(salt)",
            "$argon2x$v=19$m=64,t=2,p=1$\(salt)$\(hash)",
        ]
        for text in malformed {
            guard case .malformed? = parse(text) else {
                Issue.record("not refused as malformed: \(text) → \(String(describing: parse(text)))")
                continue
            }
        }
    }

    @Test("the hasher checks argon2 hashes on its pool, and a match asks for a bcrypt re-hash")
    func hasherChecks() async throws {
        let salt = Array("saltsaltsaltsalt".utf8)
        let output = try Argon2Hash.derive(
            .argon2i, password: Array("pässwörd".utf8), salt: salt, memoryKiB: 32, iterations: 3, parallelism: 1, length: 24)
        let text = Argon2Hash(variant: .argon2i, memoryKiB: 32, iterations: 3, parallelism: 1, salt: salt, hash: output).text
        let hasher = PasswordHasher(cost: 4, threads: 1)
        #expect(try await hasher.check("pässwörd", against: text) == PasswordCheck(matches: true, needsRehash: true))
        #expect(try await hasher.check("passwort", against: text) == PasswordCheck(matches: false, needsRehash: false))
        try await hasher.shutdown()
    }
}

/// Argon2 hashes made by PyPI's argon2-cffi: accepted by `POST /admin/users`, signing in, and
/// re-hashed to bcrypt by the first sign-in; one above the limits is a 422 that creates nothing.
@Suite("Argon2 hashes from argon2-cffi", .enabled(if: Argon2Peer.isAvailable, Comment(rawValue: Argon2Peer.skipReason)))
struct Argon2PeerTests {
    @Test("argon2id and argon2i hashes of argon2-cffi sign in, then are re-hashed to bcrypt; wrong passwords change nothing")
    func adminUsersSignIn() async throws {
        let jobs = [
            Argon2Peer.Job(password: "correct horse battery", type: "id", memoryKiB: 65536, iterations: 3, parallelism: 4),
            Argon2Peer.Job(password: "ünïcødé pass 🔑", type: "id", memoryKiB: 19456, iterations: 2, parallelism: 1),
            Argon2Peer.Job(password: "keycloak-style", type: "i", memoryKiB: 7168, iterations: 5, parallelism: 1),
        ]
        let hashes = try await Argon2Peer.hashes(jobs)
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            for (index, (job, hash)) in zip(jobs, hashes).enumerated() {
                #expect(hash.hasPrefix("$argon2\(job.type)$v=19$m=\(job.memoryKiB),t=\(job.iterations),p=\(job.parallelism)$"), "\(hash)")
                let email = "argon\(index)@example.com"
                let created = try await server.request(
                    .POST, "/admin/users", json: ["email": email, "password_hash": hash, "email_confirm": true], bearer: key)
                #expect(created.status == 200, "\(created.text)")
                let id = try #require(created["id"] as? String)
                #expect(try await AdminPasswordHashTests.storedHash(server, id) == hash)

                #expect(try await server.signIn(email, job.password + "x").status == 400)
                #expect(try await AdminPasswordHashTests.storedHash(server, id) == hash, "a wrong password changes nothing")
                #expect(try await server.signIn(email, job.password).status == 200)
                let rehashed = try #require(try await AdminPasswordHashTests.storedHash(server, id))
                #expect(rehashed.hasPrefix("$2b$"), "re-hashed with bcrypt on the first sign-in")
                #expect(Bcrypt.verify(job.password, hash: rehashed))
                #expect(try await server.signIn(email, job.password).status == 200)
            }
        }
    }

    @Test("a hash whose check would cost more than the limits is 422 validation_failed naming the limit; nothing is created")
    func overLimit() async throws {
        let made = try #require(
            try await Argon2Peer.hashes([Argon2Peer.Job(password: "pw", type: "id", memoryKiB: 1024, iterations: 1, parallelism: 1)]).first)
        try await TestServer.with { server in
            let key = server.server.serviceRoleKey
            for (from, to) in [("m=1024,", "m=1048576,"), ("t=1,", "t=64,"), ("p=1$", "p=64$"), ("m=1024,t=1,", "m=262144,t=8,")] {
                let costly = made.replacingOccurrences(of: from, with: to)
                let refused = try await server.request(
                    .POST, "/admin/users", json: ["email": "costly@example.com", "password_hash": costly], bearer: key)
                refused.expectError(422, "validation_failed")
                #expect((refused["msg"] as? String)?.contains("limit") == true, "\(refused.text)")
            }
            let users = try await server.request(.GET, "/admin/users", bearer: key)
            #expect((users["users"] as? [Any])?.isEmpty == true)
        }
    }
}
