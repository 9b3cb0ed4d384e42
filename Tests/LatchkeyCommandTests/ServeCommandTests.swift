import Foundation
import Latchkey
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `latchkey serve` and `latchkey keys`, run as real processes.
@Suite("latchkey serve and keys", .serialized)
struct ServeCommandTests {
    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-cli-\(UUID().uuidString)")
    }

    func get(_ url: String, bearer: String? = nil) async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: url)!)
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        let (data, response) = try await URLSession.shared.cancellableData(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    func waitForHealth(_ base: String) async throws {
        // A debug `serve` can take many seconds to start on a loaded machine: wait for the
        // answer, with a deadline only for one that never comes.
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if let (status, _) = try? await get(base + "/health"), status == 200 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CancellationError()
    }

    @Test("serve answers, keys' service_role key opens /admin, SIGTERM exits 0")
    func serveKeysAndGracefulShutdown() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let port = try CommandRunner.freePort()
        let server = try CommandRunner.start(["serve", "--port", "\(port)", "--data-dir", data.path, "--log-level", "warning"])
        let base = "http://127.0.0.1:\(port)"
        try await waitForHealth(base)

        let keys = try await CommandRunner.run(["keys", "--data-dir", data.path])
        #expect(keys.status == 0)
        let serviceRole = try #require(
            keys.stdout.split(separator: "\n").first { $0.hasPrefix("service_role key:") }?.split(separator: " ").last.map(String.init))
        let anon = try #require(keys.stdout.split(separator: "\n").first { $0.hasPrefix("anon key:") }?.split(separator: " ").last.map(String.init))
        #expect(try await get(base + "/admin/users", bearer: serviceRole).0 == 200)
        #expect(try await get(base + "/admin/users", bearer: anon).0 == 403)

        server.process.send(SIGTERM)
        #expect(await server.wait(upTo: 20), "the server stops on SIGTERM")
        #expect(server.process.terminationStatus == 0)
        #expect(!server.stderr.contains("Fatal error"))
    }

    @Test("serve logs where mail goes: --smtp-url over GoTrue's GOTRUE_SMTP_*, host and port, never the password")
    func mailDestination() async throws {
        let mailKeys = [
            "LATCHKEY_SMTP_URL", "LATCHKEY_MAIL_FROM", "GOTRUE_SMTP_HOST", "GOTRUE_SMTP_PORT", "GOTRUE_SMTP_USER", "GOTRUE_SMTP_PASS",
            "GOTRUE_SMTP_ADMIN_EMAIL", "GOTRUE_SMTP_SENDER_NAME",
        ]
        let environment = [
            "GOTRUE_SMTP_HOST": "127.0.0.1", "GOTRUE_SMTP_PORT": "2526", "GOTRUE_SMTP_USER": "env-user", "GOTRUE_SMTP_PASS": "env-pa55word",
            "GOTRUE_SMTP_ADMIN_EMAIL": "admin@example.com",
        ]
        for (arguments, expected) in [
            (
                ["--smtp-url", "smtp://cli-user:cli-pa55word@127.0.0.1:2525", "--mail-from", "App <app@example.com>"],
                "smtp://127.0.0.1:2525 (STARTTLS required, AUTH)"
            ),
            ([], "smtp://127.0.0.1:2526 (STARTTLS optional, AUTH)"),
        ] {
            let data = temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: data) }
            let port = try CommandRunner.freePort()
            let server = try CommandRunner.start(
                ["serve", "--port", "\(port)", "--data-dir", data.path, "--log-level", "notice"] + arguments,
                environment: environment, removing: mailKeys)
            try await waitForHealth("http://127.0.0.1:\(port)")
            server.process.send(SIGTERM)
            #expect(await server.wait(upTo: 20))
            let log = server.stderr
            #expect(log.contains("mail goes over SMTP") && log.contains(expected), "\(log)")
            for secret in ["cli-pa55word", "env-pa55word", "cli-user", "env-user"] { #expect(!log.contains(secret)) }
        }
        let bad = try await CommandRunner.run(["serve", "--smtp-url", "ftp://u:topsecret@h", "--data-dir", temporaryDirectory().path])
        #expect(bad.status != 0)
        #expect(bad.stderr.contains("--smtp-url") && !bad.stderr.contains("topsecret"))
    }

    @Test("start-up failures are one plain sentence naming the fix: a port in use, a data directory that cannot be made, no raw NIO text")
    func startUpFailures() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let port = try CommandRunner.freePort()
        let first = try CommandRunner.start(["serve", "--port", "\(port)", "--data-dir", data.path, "--log-level", "warning"])
        try await waitForHealth("http://127.0.0.1:\(port)")

        let second = try CommandRunner.start(["serve", "--port", "\(port)", "--data-dir", temporaryDirectory().path, "--log-level", "warning"])
        #expect(await second.wait(upTo: 60))
        let busy = await second.result()
        #expect(busy.status == 1)
        #expect(busy.stderr.contains("latchkey: Port \(port) is already in use on 127.0.0.1"), "\(busy.stderr)")
        #expect(busy.stderr.contains("--port"))
        for raw in ["bind(", "errno", "Error:", "USAGE"] { #expect(!busy.stderr.contains(raw), "\(raw) in \(busy.stderr)") }
        first.process.send(SIGTERM)
        #expect(await first.wait(upTo: 20))

        // A data directory under a regular file cannot be created, whoever runs the test.
        let file = temporaryDirectory()
        _ = FileManager.default.createFile(atPath: file.path, contents: Data())
        defer { try? FileManager.default.removeItem(at: file) }
        let badData = try await CommandRunner.run([
            "serve", "--port", "\(CommandRunner.freePort())", "--data-dir", file.appendingPathComponent("data").path, "--log-level", "warning",
        ])
        #expect(badData.status == 1)
        #expect(badData.stderr.contains("the data directory") && badData.stderr.contains("--data-dir"), "\(badData.stderr)")
        #expect(badData.stderr.split(separator: "\n").count == 1, "one sentence: \(badData.stderr)")

        let noDatabase = try await CommandRunner.run(
            [
                "serve", "--port", "\(CommandRunner.freePort())", "--data-dir", temporaryDirectory().path, "--log-level", "warning",
                "--database", "postgres://user:dbsecret@127.0.0.1:1/latchkey", "--database-timeout", "2",
            ])
        #expect(noDatabase.status == 1)
        #expect(noDatabase.stderr.contains("the database cannot be reached") && noDatabase.stderr.contains("--database"), "\(noDatabase.stderr)")
        for raw in ["dbsecret", "errno", "NIOConnectionError"] { #expect(!noDatabase.stderr.contains(raw), "\(raw) in \(noDatabase.stderr)") }
    }

    @Test("bad configuration is a clear error and a non-zero exit, never a crash")
    func badConfiguration() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let shortSecret = try await CommandRunner.run(["serve", "--data-dir", data.path], environment: ["LATCHKEY_JWT_SECRET": "short"])
        #expect(shortSecret.status != 0)
        #expect(shortSecret.stderr.contains("LATCHKEY_JWT_SECRET (GOTRUE_JWT_SECRET) must be at least 32 bytes"))
        let badPort = try await CommandRunner.run(["serve", "--port", "70000", "--data-dir", data.path])
        #expect(badPort.status != 0)
        #expect(badPort.stderr.contains("--port"))
        let postgres = try await CommandRunner.run(["serve", "--database", "mysql://nope", "--data-dir", data.path])
        #expect(postgres.status != 0)
        #expect(!postgres.stderr.contains("Fatal error"))
        let badLevel = try await CommandRunner.run(["serve", "--log-level", "loud"])
        #expect(badLevel.status != 0)
    }
}
