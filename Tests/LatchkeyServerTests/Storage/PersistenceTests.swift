import Foundation
import LatchkeyTesting
import Logging
import Testing

@testable import LatchkeyServer

/// A restart on the same data directory keeps users, sessions and the signing secret;
/// files are private to the server's user.
@Suite("Persistence and files")
struct PersistenceTests {
    @Test("users and sessions survive a restart; tokens issued before it still work")
    func restart() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-restart-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let clock = ManualServerClock()
        let session = try await TestServer.with(directory: directory, clock: clock) { server in
            try await server.signUp("persist@example.com", "persistent password")
        }
        try await TestServer.with(directory: directory, clock: clock) { (server: TestServer) async throws -> Void in
            #expect(try await server.request(.GET, "/user", bearer: session.accessToken).status == 200, "same secret after restart")
            #expect(try await server.refresh(session.refreshToken).status == 200)
            #expect(try await server.signIn("persist@example.com", "persistent password").status == 200)
        }
    }

    @Test("data directory 0700, secret and database files 0600")
    func filePermissions() async throws {
        try await TestServer.with(configure: { $0.autoconfirm = false }) { server in
            _ = try await server.request(.POST, "/signup", json: ["email": "perm@example.com", "password": "correct horse battery"])
            func mode(_ path: String) throws -> Int {
                (try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? NSNumber)?.intValue ?? -1
            }
            #expect(try mode(server.directory.path) == 0o700)
            #expect(try mode(server.directory.appendingPathComponent("jwt-secret").path) == 0o600)
            #expect(try mode(server.directory.appendingPathComponent("latchkey.sqlite").path) == 0o600)
            let outbox = try FileManager.default.contentsOfDirectory(atPath: server.server.outboxDirectory.path)
            for file in outbox { #expect(try mode(server.server.outboxDirectory.appendingPathComponent(file).path) == 0o600) }
        }
    }

    @Test("a short LATCHKEY_JWT_SECRET is refused at start")
    func shortSecretRefused() async throws {
        await #expect(throws: ConfigurationError.self) {
            try await TestServer.with(configure: { $0.jwtSecret = "too-short" }) { _ in }
        }
    }

    @Test("passwords are stored as bcrypt hashes with the configured cost")
    func passwordsHashed() async throws {
        try await TestServer.with(configure: { $0.bcryptCost = 10 }) { server in
            try await server.signUp("hash@example.com", "plain text password")
            let store = try SQLiteAuthStore(path: server.directory.appendingPathComponent("latchkey.sqlite").path)
            let user = try #require(try await store.user(email: "hash@example.com"))
            #expect(user.passwordHash?.hasPrefix("$2b$10$") == true)
            try await store.close()
            let data = try Data(contentsOf: server.directory.appendingPathComponent("latchkey.sqlite"))
            let wal = (try? Data(contentsOf: server.directory.appendingPathComponent("latchkey.sqlite-wal"))) ?? Data()
            #expect(data.range(of: Data("plain text password".utf8)) == nil)
            #expect(wal.range(of: Data("plain text password".utf8)) == nil)
        }
    }
}
