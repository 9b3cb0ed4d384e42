import Foundation
import GRDB
import Testing

@testable import LatchkeyServer

/// A stored row holding what the store never writes is reported as unreadable, naming the
/// column: the store never makes up a value in its place.
@Suite("Unreadable stored rows")
struct UnreadableRowTests {
    @Test("SQLite: an id that is no UUID, and an unknown audit action")
    func sqlite() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-unreadable-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let store = try SQLiteAuthStore(path: path)
        let user = AuthStoreConformanceTests.user("unreadable@example.com")
        try await store.insertUser(user, audit: AuthStoreConformanceTests.audit(.userSignedUp, user))
        try await store.appendAudit(AuthStoreConformanceTests.audit(.login, user))

        let database = try DatabaseQueue(path: path)
        try await database.write { db in
            try db.execute(sql: "UPDATE users SET id = 'not-a-uuid'")
            try db.execute(sql: "UPDATE audit_log SET action = 'made_up' WHERE action = 'login'")
        }
        try database.close()
        await #expect(throws: StoreError.unreadableRow("users.id holds no UUID")) { try await store.user(email: user.email) }
        await #expect(throws: StoreError.unreadableRow("users.id holds no UUID")) { try await store.listUsers(offset: 0, limit: 10) }
        await #expect(throws: StoreError.unreadableRow("audit_log.action holds an unknown action")) {
            try await store.auditEntries(offset: 0, limit: 10)
        }
        try await store.close()
    }

    @Test("PostgreSQL: an unknown audit action", .enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
    func postgres() async throws {
        try await StoreKind.postgres.withStore { store in
            let user = AuthStoreConformanceTests.user("unreadable@example.com")
            try await store.appendAudit(AuthStoreConformanceTests.audit(.login, user))
            let postgres = try #require(store as? PostgresAuthStore)
            try await postgres.autocommit { connection in
                _ = try await connection.query("UPDATE audit_log SET action = 'made_up'", logger: postgres.logger)
            }
            await #expect(throws: StoreError.unreadableRow("audit_log.action holds an unknown action")) {
                try await store.auditEntries(offset: 0, limit: 10)
            }
        }
    }
}
