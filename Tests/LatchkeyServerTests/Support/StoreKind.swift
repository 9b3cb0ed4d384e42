import Foundation
import Logging
import Testing

@testable import LatchkeyServer

/// The ``AuthStore`` implementations the conformance suite runs against.
enum StoreKind: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { self == .sqlite ? "SQLite" : "PostgreSQL" }

    /// The kinds that can run here: SQLite always, PostgreSQL when a test server is configured
    /// (see ``PostgresTestDatabase``).
    static var available: [StoreKind] { PostgresTestDatabase.isAvailable ? [.sqlite, .postgres] : [.sqlite] }

    /// Runs `body` with a fresh, empty, migrated store of this kind, then closes and removes it.
    func withStore<T>(_ body: (any AuthStore) async throws -> T) async throws -> T {
        switch self {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-store-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let store = try SQLiteAuthStore(path: directory.appendingPathComponent("store.sqlite").path)
            do {
                let result = try await body(store)
                try await store.close()
                return result
            } catch {
                try? await store.close()
                throw error
            }
        case .postgres:
            return try await PostgresTestDatabase.with { url in
                // A generous connection wait: on a loaded 2-core CI machine 40 concurrent
                // rotations queue for 4 connections longer than the 5 s production default.
                let store = try await PostgresAuthStore.connect(
                    url: url, poolSize: 4, timeout: 60, logger: Logger(label: "test.postgres", factory: { _ in SwiftLogNoOpLogHandler() }))
                // The pool runs while the test does; cancelling the task closes it.
                let pool = Task { try await store.run() }
                defer { pool.cancel() }
                let result = try await body(store)
                pool.cancel()
                _ = await pool.result
                return result
            }
        }
    }
}
