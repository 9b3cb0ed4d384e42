import Foundation
import Latchkey
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// `serve` configured from the environment, `keys` and its secret source, `backup` while the
/// server writes: all as real processes.
@Suite("latchkey serve from the environment, keys, backup", .serialized)
struct OperationsCommandTests {
    static let secret = "an-environment-secret-of-at-least-32-bytes-0123"

    func temporaryDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-ops-\(UUID().uuidString)")
    }

    func send(_ method: String, _ url: String, json: [String: String]? = nil, bearer: String? = nil) async throws -> (Int, String) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        if let bearer { request.setValue("Bearer \(bearer)", forHTTPHeaderField: "Authorization") }
        if let json {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = try JSONSerialization.data(withJSONObject: json)
        }
        let (data, response) = try await URLSession.shared.cancellableData(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    func waitUntilReady(_ base: String) async throws {
        // A debug `serve` can take many seconds to start on a loaded machine: wait for the
        // answer, with a deadline only for one that never comes.
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline {
            if let (status, _) = try? await send("GET", base + "/ready"), status == 200 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw CancellationError()
    }

    @Test("serve takes its options from LATCHKEY_* and GoTrue's names, logs them redacted as JSON, keys signs with the same secret")
    func environment() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let port = try CommandRunner.freePort()
        let databaseFile = data.appendingPathComponent("elsewhere/auth.sqlite")
        let environment = [
            "LATCHKEY_PORT": "\(port)", "LATCHKEY_DATA_DIR": data.path, "LATCHKEY_LOG_FORMAT": "json",
            "LATCHKEY_DATABASE_URL": "sqlite://" + databaseFile.path, "GOTRUE_JWT_SECRET": Self.secret,
            "GOTRUE_MAILER_AUTOCONFIRM": "true", "GOTRUE_SITE_URL": "https://app.example.com", "GOTRUE_JWT_EXP": "900",
            "LATCHKEY_METRICS_TOKEN": "metrics-token-from-env-0123", "LATCHKEY_BCRYPT_COST": "4",
        ]
        let server = try CommandRunner.start(["serve"], environment: environment)
        let base = "http://127.0.0.1:\(port)"
        try await waitUntilReady(base)
        #expect(FileManager.default.fileExists(atPath: databaseFile.path), "the database URL came from LATCHKEY_DATABASE_URL")
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("jwt-secret").path), "the secret came from GOTRUE_JWT_SECRET")
        let (status, body) = try await send("POST", base + "/signup", json: ["email": "env@example.com", "password": "correct horse battery"])
        #expect(status == 200, "autoconfirmed by GOTRUE_MAILER_AUTOCONFIRM: \(body)")
        #expect(body.contains("\"expires_in\":900"), "GOTRUE_JWT_EXP")
        #expect(try await send("GET", base + "/metrics", bearer: "metrics-token-from-env-0123").0 == 200)

        let keys = try await CommandRunner.run(["keys", "--data-dir", data.path], environment: ["GOTRUE_JWT_SECRET": Self.secret])
        #expect(keys.status == 0)
        #expect(keys.stderr.contains("GOTRUE_JWT_SECRET"), "keys says which secret it used: \(keys.stderr)")
        let serviceRole = try #require(
            keys.stdout.split(separator: "\n").first { $0.hasPrefix("service_role key:") }?.split(separator: " ").last.map(String.init))
        #expect(try await send("GET", base + "/admin/users", bearer: serviceRole).0 == 200)

        server.process.send(SIGTERM)
        #expect(await server.wait(upTo: 20))
        let log = server.stderr
        let lines = log.split(separator: "\n")
        #expect(!lines.isEmpty && lines.allSatisfy { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) != nil }, "JSON lines: \(log)")
        let settings = try #require(lines.first { $0.contains("\"effective settings\"") })
        #expect(settings.contains("\"siteURL\":\"https://app.example.com\"") && settings.contains("GOTRUE_SITE_URL"))
        #expect(log.contains("\"path\":\"/signup\"") && log.contains("\"client_ip\":\"127.0.0.1\""), "the access log")
        for secret in [Self.secret, "metrics-token-from-env-0123", "correct horse battery"] { #expect(!log.contains(secret)) }
    }

    @Test("keys never creates a secret: with none it fails clearly and leaves the directory alone")
    func keysWithoutSecret() async throws {
        let data = temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: data) }
        let keys = try await CommandRunner.run(["keys", "--data-dir", data.path])
        #expect(keys.status == 1)
        #expect(keys.stderr.contains("no JWT secret") && keys.stderr.contains("LATCHKEY_JWT_SECRET"))
        #expect(keys.stdout.isEmpty)
        #expect(!FileManager.default.fileExists(atPath: data.path), "nothing created")
        let short = try await CommandRunner.run(["keys", "--data-dir", data.path], environment: ["LATCHKEY_JWT_SECRET": "short"])
        #expect(short.status != 0 && short.stderr.contains("at least 32 bytes"))
    }

    @Test("backup while the server writes; the restored copy serves and signs in")
    func backupAndRestore() async throws {
        let data = temporaryDirectory()
        let restored = temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(at: data)
            try? FileManager.default.removeItem(at: restored)
        }
        let port = try CommandRunner.freePort()
        let base = "http://127.0.0.1:\(port)"
        let server = try CommandRunner.start([
            "serve", "--port", "\(port)", "--data-dir", data.path, "--autoconfirm", "--bcrypt-cost", "4", "--no-rate-limits", "--log-level",
            "warning",
        ])
        try await waitUntilReady(base)
        #expect(try await send("POST", base + "/signup", json: ["email": "before@example.com", "password": "correct horse battery"]).0 == 200)

        // Sign-ups keep writing while three backups are taken.
        let writer = Task {
            var count = 0
            while !Task.isCancelled, count < 400 {
                if let (status, _) = try? await send(
                    "POST", base + "/signup", json: ["email": "w\(count)@example.com", "password": "correct horse battery"]),
                    status == 200
                {
                    count += 1
                }
            }
            return count
        }
        let backupFile = data.deletingLastPathComponent().appendingPathComponent("latchkey-backup-\(UUID().uuidString).sqlite")
        defer { try? FileManager.default.removeItem(at: backupFile) }
        for _ in 0..<3 {
            try await Task.sleep(for: .milliseconds(150))
            let backup = try await CommandRunner.run(["backup", "--data-dir", data.path, "--to", backupFile.path])
            #expect(backup.status == 0, "\(backup.stderr)")
            #expect(backup.stdout.contains("backed up"))
        }
        writer.cancel()
        let written = await writer.value
        #expect(written > 0, "the server was writing during the backups")
        server.process.send(SIGTERM)
        #expect(await server.wait(upTo: 20))
        let mode = try FileManager.default.attributesOfItem(atPath: backupFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // Restore: the copy and the secret into a new data directory.
        try FileManager.default.createDirectory(at: restored, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: backupFile, to: restored.appendingPathComponent("latchkey.sqlite"))
        try FileManager.default.copyItem(at: data.appendingPathComponent("jwt-secret"), to: restored.appendingPathComponent("jwt-secret"))
        let port2 = try CommandRunner.freePort()
        let again = try CommandRunner.start(["serve", "--port", "\(port2)", "--data-dir", restored.path, "--log-level", "warning"])
        let base2 = "http://127.0.0.1:\(port2)"
        try await waitUntilReady(base2)
        let (status, body) = try await send(
            "POST", base2 + "/token?grant_type=password", json: ["email": "before@example.com", "password": "correct horse battery"])
        #expect(status == 200, "\(body)")
        again.process.send(SIGTERM)
        #expect(await again.wait(upTo: 20))

        let postgres = try await CommandRunner.run(["backup", "--database", "postgres://u:p@h/db", "--to", backupFile.path])
        #expect(postgres.status != 0 && postgres.stderr.contains("pg_dump") && !postgres.stderr.contains("u:p@"))
    }
}
