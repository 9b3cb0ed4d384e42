import Foundation
import LatchkeyServer
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `latchkey keys generate` and `serve --jwt-keys`, as real processes.
@Suite("latchkey keys generate, serve with JWT keys", .serialized)
struct KeysCommandTests {
    let operations = OperationsCommandTests()

    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-keys-\(UUID().uuidString)")
    }

    func object(_ json: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    }

    @Test("keys generate prints one private JWK per algorithm, with a fresh kid and key_ops, and writes nothing")
    func generate() async throws {
        let data = temporaryDirectory()
        var kids = Set<String>()
        for (alg, kty, members) in [
            ("ES256", "EC", ["crv", "x", "y", "d"]), ("RS256", "RSA", ["n", "e", "d", "p", "q", "dp", "dq", "qi"]), ("hs256", "oct", ["k"]),
        ] {
            // The environment's serve options do not reach the subcommand.
            let run = try await CommandRunner.run(["keys", "generate", "--alg", alg], environment: ["LATCHKEY_DATA_DIR": data.path])
            #expect(run.status == 0, "\(run.stderr)")
            let lines = run.stdout.split(separator: "\n")
            #expect(lines.count == 1)
            let key = try object(String(try #require(lines.first)))
            #expect(key["alg"] as? String == alg.uppercased())
            #expect(key["kty"] as? String == kty)
            #expect(key["use"] as? String == "sig")
            #expect(key["key_ops"] as? [String] == ["sign", "verify"])
            for member in members { #expect(key[member] is String, "\(alg) \(member)") }
            kids.insert(try #require(key["kid"] as? String))
            let set = try JWTKeySet(json: "[\(run.stdout)]")
            #expect(set.signingKey.algorithm.rawValue == alg.uppercased())
        }
        #expect(kids.count == 3)
        let standby = try await CommandRunner.run(["keys", "generate", "--verify-only"])
        #expect(try object(standby.stdout)["key_ops"] as? [String] == ["verify"])
        #expect(try object(standby.stdout)["alg"] as? String == "ES256", "ES256 by default")
        let wrong = try await CommandRunner.run(["keys", "generate", "--alg", "ES384"])
        #expect(wrong.status == 2 && wrong.stderr.contains("--alg must be ES256, RS256 or HS256"))
        #expect(!FileManager.default.fileExists(atPath: data.path), "no file written")
    }

    @Test("serve signs with GOTRUE_JWT_KEYS, publishes the public key, logs only kids and algorithms; the API keys still work")
    func serveWithKeys() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let signing = try await CommandRunner.run(["keys", "generate", "--alg", "ES256"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let standby = try await CommandRunner.run(["keys", "generate", "--alg", "RS256", "--verify-only"]).stdout.trimmingCharacters(
            in: .whitespacesAndNewlines)
        let (signingKey, standbyKey) = (try object(signing), try object(standby))
        let port = try CommandRunner.freePort()
        let server = try CommandRunner.start(
            ["serve", "--port", "\(port)", "--autoconfirm", "--bcrypt-cost", "4"],
            environment: [
                "LATCHKEY_DATA_DIR": data.path, "GOTRUE_JWT_KEYS": "[\(signing), \(standby)]", "LATCHKEY_JWT_SECRET": OperationsCommandTests.secret,
            ])
        let base = "http://127.0.0.1:\(port)"
        try await operations.waitUntilReady(base)

        let (status, body) = try await operations.send("GET", base + "/auth/v1/.well-known/jwks.json")
        #expect(status == 200)
        let published = try #require(try object(body)["keys"] as? [[String: Any]])
        #expect(published.compactMap { $0["kid"] as? String } == [signingKey["kid"] as? String, standbyKey["kid"] as? String])
        #expect(published.allSatisfy { $0["d"] == nil && $0["p"] == nil })

        let (signUpStatus, signUp) = try await operations.send(
            "POST", base + "/signup", json: ["email": "keys@example.com", "password": "correct horse battery"])
        #expect(signUpStatus == 200)
        let accessToken = try #require(try object(signUp)["access_token"] as? String)
        var header = String(accessToken.split(separator: ".")[0]).replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while header.count % 4 != 0 { header += "=" }
        let headerJSON = try object(String(decoding: try #require(Data(base64Encoded: header)), as: UTF8.self))
        #expect(headerJSON["kid"] as? String == signingKey["kid"] as? String)
        #expect(headerJSON["alg"] as? String == "ES256")
        #expect(try await operations.send("GET", base + "/user", bearer: accessToken).0 == 200)

        let keys = try await CommandRunner.run(
            ["keys", "--data-dir", data.path], environment: ["LATCHKEY_JWT_SECRET": OperationsCommandTests.secret])
        let serviceRole = try #require(
            keys.stdout.split(separator: "\n").first { $0.hasPrefix("service_role key:") }?.split(separator: " ").last.map(String.init))
        #expect(try await operations.send("GET", base + "/admin/users", bearer: serviceRole).0 == 200)

        server.process.send(SIGTERM)
        #expect(await server.wait(upTo: 20))
        let log = server.stderr
        #expect(log.contains("ES256 \(signingKey["kid"] as! String) (signs)"), "\(log)")
        #expect(log.contains("RS256 \(standbyKey["kid"] as! String) (verifies)"))
        #expect(log.contains("GOTRUE_JWT_KEYS"), "names the variable")
        for member in ["d", "x", "y"] { #expect(!log.contains(signingKey[member] as! String), "\(member) in the log") }
        for member in ["d", "p", "q", "n"] { #expect(!log.contains(standbyKey[member] as! String), "\(member) in the log") }
    }

    @Test("serve refuses bad JWT keys at start with a sentence naming the problem, never the key")
    func badKeys() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let one = try await CommandRunner.run(["keys", "generate"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let two = try await CommandRunner.run(["keys", "generate"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let secretMembers = [try object(one)["d"] as! String, try object(two)["d"] as! String]
        let standby = one.replacingOccurrences(of: #""key_ops":["sign","verify"]"#, with: #""key_ops":["verify"]"#)
        let cases: [([String], [String: String], String)] = [
            (["--jwt-keys", "[\(one),\(two)]"], [:], "2 signing keys"),
            ([], ["LATCHKEY_JWT_KEYS": "[\(standby)]"], "no signing key"),
            ([], ["GOTRUE_JWT_KEYS": "{\"keys\":[\(one)]}"], "JSON array"),
            (["--jwt-keys", "[\(one.replacingOccurrences(of: "ES256", with: "ES512"))]"], [:], "alg ES512 is not supported"),
            (["--jwt-keys-file", data.appendingPathComponent("missing.json").path], [:], "cannot read JWT keys"),
        ]
        for (arguments, environment, message) in cases {
            let run = try await CommandRunner.run(["serve", "--port", "0", "--data-dir", data.path] + arguments, environment: environment)
            #expect(run.status == 2, "\(message): \(run.stderr)")
            #expect(run.stderr.contains(message), "\(run.stderr)")
            for secret in secretMembers { #expect(!run.stderr.contains(secret) && !run.stdout.contains(secret)) }
        }
    }

    @Test("--jwt-keys-file reads the keys from a file")
    func keysFile() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let key = try await CommandRunner.run(["keys", "generate", "--alg", "RS256"]).stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let file = data.appendingPathComponent("jwt-keys.json")
        try Data("[\(key)]\n".utf8).write(to: file)
        let port = try CommandRunner.freePort()
        let server = try CommandRunner.start([
            "serve", "--port", "\(port)", "--data-dir", data.path, "--jwt-keys-file", file.path, "--log-level", "warning",
        ])
        let base = "http://127.0.0.1:\(port)"
        try await operations.waitUntilReady(base)
        let (_, body) = try await operations.send("GET", base + "/.well-known/jwks.json")
        #expect(body.contains(try object(key)["kid"] as! String))
        server.process.send(SIGTERM)
        #expect(await server.wait(upTo: 20))
    }
}
