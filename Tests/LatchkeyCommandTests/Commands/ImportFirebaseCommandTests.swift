import Foundation
import Latchkey
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `latchkey import firebase` as a real process, into the database of a real server running in
/// this process, with password hashes made by PyPI's `firebase-scrypt`.
@Suite("latchkey import firebase")
struct ImportFirebaseCommandTests {
    func signIn(_ server: TestAuthServer, _ email: String, _ password: String) async throws -> (status: Int, json: [String: Any]) {
        var request = URLRequest(url: URL(string: server.baseURL.absoluteString + "/token?grant_type=password")!)
        request.httpMethod = "POST"
        request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        request.httpBody = try JSONSerialization.data(withJSONObject: ["email": email, "password": password])
        let (data, response) = try await URLSession.shared.cancellableData(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:])
    }

    @Test(
        "imported users sign in with the passwords firebase-scrypt hashed, keep their UIDs, and a re-run changes nothing",
        .enabled(if: FirebaseScryptPeer.isAvailable, Comment(rawValue: FirebaseScryptPeer.skipReason)))
    func endToEnd() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let signerKey = FirebaseScryptPeer.randomBase64(count: 64)
        let separator = FirebaseScryptPeer.randomBase64(count: 1)
        let uuidUID = UUID().uuidString.lowercased()
        let accounts: [(uid: String, email: String, password: String, verified: Bool, disabled: Bool)] = [
            ("FbUid0001aaaaBBBBcccc", "first@example.com", "first password 1", true, false),
            (uuidUID, "second@example.com", "second pässword 2", true, false),
            ("FbUid0003unverified", "third@example.com", "third password 3", false, false),
            ("FbUid0004disabled", "fourth@example.com", "fourth password 4", true, true),
        ]
        let salts = accounts.map { _ in FirebaseScryptPeer.randomBase64(count: 12) }
        let hashes = try await FirebaseScryptPeer.hashes(
            zip(accounts, salts).map { ($0.password, $1) }, signerKey: signerKey, saltSeparator: separator, rounds: 8, memoryCost: 14)
        let users: [[String: Any]] = accounts.indices.map { index in
            let account = accounts[index]
            var user: [String: Any] = [
                "localId": account.uid, "email": account.email, "emailVerified": account.verified, "passwordHash": hashes[index],
                "salt": salts[index], "displayName": "User \(index)", "createdAt": "1508893925000", "disabled": account.disabled,
            ]
            if index == 1 { user["providerUserInfo"] = [["providerId": "google.com", "rawId": "109876543210", "email": account.email]] }
            return user
        }
        let export = folder.appendingPathComponent("users.json")
        try JSONSerialization.data(withJSONObject: ["users": users], options: [.prettyPrinted]).write(to: export)
        let config = folder.appendingPathComponent("hash-config.txt")
        try """
        hash_config {
          algorithm: SCRYPT,
          base64_signer_key: \(signerKey),
          base64_salt_separator: \(separator),
          rounds: 8,
          mem_cost: 14,
        }
        """.write(to: config, atomically: true, encoding: .utf8)

        let data = folder.appendingPathComponent("data")
        let server = try await TestAuthServer.start(dataDirectory: data)
        do {
            let arguments = [
                "import", "firebase", export.path, "--hash-config", config.path, "--data-dir", data.path,
                "--database", "sqlite://" + data.appendingPathComponent("latchkey.sqlite").path,
            ]
            let first = try await CommandRunner.run(arguments)
            #expect(first.status == 0, "\(first.stderr)")
            #expect(first.stdout.contains("read 4 accounts: 4 created, 0 updated, 0 unchanged, 0 refused"), "\(first.stdout)")

            let derived = FirebaseAccountMapping.userID(forUID: accounts[0].uid).uuidString.lowercased()
            let firstIn = try await signIn(server, "first@example.com", accounts[0].password)
            #expect(firstIn.status == 200)
            #expect((firstIn.json["user"] as? [String: Any])?["id"] as? String == derived)
            let secondIn = try await signIn(server, "second@example.com", accounts[1].password)
            #expect(secondIn.status == 200)
            let second = secondIn.json["user"] as? [String: Any]
            #expect(second?["id"] as? String == uuidUID, "a UUID UID is the user's id")
            #expect(((second?["identities"] as? [[String: Any]]) ?? []).contains { $0["provider"] as? String == "google" })
            #expect((second?["user_metadata"] as? [String: Any])?["display_name"] as? String == "User 1")

            let wrong = try await signIn(server, "first@example.com", "first password 2")
            #expect(wrong.status == 400 && wrong.json["error_code"] as? String == "invalid_credentials")
            #expect(try await signIn(server, "third@example.com", accounts[2].password).json["error_code"] as? String == "email_not_confirmed")
            #expect(try await signIn(server, "fourth@example.com", accounts[3].password).json["error_code"] as? String == "user_banned")

            let again = try await CommandRunner.run(arguments)
            #expect(again.status == 0)
            #expect(again.stdout.contains("read 4 accounts: 0 created, 0 updated, 4 unchanged, 0 refused"), "\(again.stdout)")
            #expect(try await signIn(server, "first@example.com", accounts[0].password).status == 200, "re-hashed, and kept by the re-run")
            #expect(try await signIn(server, "first@example.com", "first password 2").status == 400)

            for output in [first.stdout, first.stderr, again.stdout, again.stderr] {
                for secret in [signerKey, separator, hashes[0], hashes[1], salts[0], "first@example.com", accounts[0].password] {
                    #expect(!output.contains(secret), "the command printed a secret or an address")
                }
            }
            try await server.shutdown()
        } catch {
            try? await server.shutdown()
            throw error
        }
    }

    @Test("a bad hash config and a missing file are usage errors that name no secret")
    func usage() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-import-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let config = folder.appendingPathComponent("hash-config.txt")
        try "base64_signer_key: c2VjcmV0LWtleS1ieXRlcw==\nrounds: 99\nmem_cost: 14\n".write(to: config, atomically: true, encoding: .utf8)
        let export = folder.appendingPathComponent("users.json")
        try #"{"users": []}"#.write(to: export, atomically: true, encoding: .utf8)
        let bad = try await CommandRunner.run(["import", "firebase", export.path, "--hash-config", config.path, "--data-dir", folder.path])
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("rounds") && !bad.stderr.contains("c2VjcmV0LWtleS1ieXRlcw=="))
        let missing = try await CommandRunner.run(["import", "firebase", folder.appendingPathComponent("nope.json").path, "--data-dir", folder.path])
        #expect(missing.status == 2)
    }
}
