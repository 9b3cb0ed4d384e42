import Foundation
import GRDB
import Testing

@testable import LatchkeyServer

/// What clients get when the database cannot be used, and what a failed sign-up leaves behind.
@Suite("Store failures")
struct StoreFailureTests {
    static func directory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-failure-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }

    /// Runs `statements` on a second connection to the server's SQLite file.
    static func execute(_ statements: String, on directory: URL) throws {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("latchkey.sqlite").path)
        try queue.write { try $0.execute(sql: statements) }
        try queue.close()
    }

    static func count(_ table: String, in directory: URL) throws -> Int {
        let queue = try DatabaseQueue(path: directory.appendingPathComponent("latchkey.sqlite").path)
        defer { try? queue.close() }
        return try queue.read { try Int.fetchOne($0, sql: "SELECT COUNT(*) FROM \(table)") ?? 0 }
    }

    @Test("a SQLite database that is gone answers 503 service_unavailable JSON; /health still answers")
    func sqliteUnavailable() async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteAuthStore(path: directory.appendingPathComponent("latchkey.sqlite").path)
        try await TestServer.with(directory: directory, store: store, configure: { $0.autoconfirm = true }) { server in
            let session = try await server.signUp("before@example.com")
            // The database goes away under the running server.
            try await store.close()
            let signUp = try await server.request(.POST, "/signup", json: ["email": "during@example.com", "password": "correct horse battery"])
            #expect(signUp.status == 503)
            #expect(signUp.errorCode == "service_unavailable")
            #expect(signUp.headers.first(name: "Content-Type") == "application/json")
            #expect(try await server.signIn("before@example.com").status == 503)
            let refreshed = try await server.refresh(session.refreshToken)
            #expect(refreshed.status == 503, "\(refreshed.text)")
            #expect(try await server.request(.GET, "/user", bearer: session.accessToken).status == 503)
            #expect(try await server.request(.GET, "/health").status == 200, "liveness does not need the database")
        }
    }

    @Test("SQLite errors that mean 'cannot be used now' are unavailable; others are not")
    func classification() {
        for code in [ResultCode.SQLITE_BUSY, .SQLITE_FULL, .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_CANTOPEN] {
            #expect(SQLiteAuthStore.translate(DatabaseError(resultCode: code)) is StoreError, "\(code)")
        }
        #expect(SQLiteAuthStore.translate(DatabaseError(resultCode: .SQLITE_MISUSE, message: "Connection is closed")) is StoreError)
        #expect(
            SQLiteAuthStore.translate(
                DatabaseError(resultCode: .SQLITE_MISUSE, message: "out of memory - while executing `BEGIN IMMEDIATE TRANSACTION`")) is StoreError)
        #expect(!(SQLiteAuthStore.translate(DatabaseError(resultCode: .SQLITE_MISUSE, message: "bad")) is StoreError))
        #expect(!(SQLiteAuthStore.translate(DatabaseError(resultCode: .SQLITE_ERROR)) is StoreError))
    }

    @Test(
        "a sign-up whose session or confirmation link cannot be stored leaves no account behind",
        arguments: [(true, "sessions"), (false, "one_time_tokens")])
    func atomicSignUp(autoconfirm: Bool, table: String) async throws {
        let directory = try Self.directory()
        defer { try? FileManager.default.removeItem(at: directory) }
        try await TestServer.with(directory: directory, configure: { $0.autoconfirm = autoconfirm }) { server in
            // The second write of the sign-up fails, after the user row was written in the same transaction.
            try Self.execute(
                "CREATE TRIGGER fail_\(table) BEFORE INSERT ON \(table) BEGIN SELECT RAISE(ABORT, 'injected failure'); END", on: directory)
            let failed = try await server.request(.POST, "/signup", json: ["email": "atomic@example.com", "password": "correct horse battery"])
            #expect(failed.status >= 500)
            #expect(failed.errorCode != nil, "a JSON error")
            #expect(try Self.count("users", in: directory) == 0, "no user row without its \(table) row")
            try Self.execute("DROP TRIGGER fail_\(table)", on: directory)
            let again = try await server.request(.POST, "/signup", json: ["email": "atomic@example.com", "password": "correct horse battery"])
            #expect(again.status == 200 || again.errorCode == "over_email_send_rate_limit", "the address is free: \(again.text)")
            if again.status != 200 {
                // The failed attempt counted against the address's one-email-a-minute limit.
                server.clock.advance(by: 61)
                #expect(
                    try await server.request(.POST, "/signup", json: ["email": "atomic@example.com", "password": "correct horse battery"]).status
                        == 200)
            }
            #expect(try Self.count("users", in: directory) == 1)
            #expect(try Self.count(table, in: directory) == 1)
        }
    }
}
