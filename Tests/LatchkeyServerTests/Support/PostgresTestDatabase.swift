import Foundation
import Logging
import PostgresNIO
import Testing

@testable import LatchkeyServer

/// Fresh PostgreSQL databases for tests, on the server `LATCHKEY_TEST_POSTGRES_URL` names.
///
/// `scripts/test.sh` starts a throwaway cluster and sets the variable; without it the
/// PostgreSQL tests are skipped (their `.enabled(if: PostgresTestDatabase.isAvailable)` says so
/// in the test output). Each test gets its own database, `latchkey_test_<random>`, created from
/// an admin connection and dropped afterwards, so tests run in parallel without meeting.
enum PostgresTestDatabase {
    static let environmentVariable = "LATCHKEY_TEST_POSTGRES_URL"

    /// The server to create test databases on, when configured.
    static var adminURL: String? {
        ProcessInfo.processInfo.environment[environmentVariable].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// Whether the PostgreSQL tests can run.
    static var isAvailable: Bool { adminURL != nil }

    /// The comment shown next to a skipped PostgreSQL test.
    static let skipReason: Comment =
        "LATCHKEY_TEST_POSTGRES_URL is not set: PostgreSQL tests are skipped (scripts/test.sh starts a throwaway server when PostgreSQL is installed)"

    /// Runs `body` with the URL of a new, empty database; drops the database afterwards.
    static func with<T>(_ body: (String) async throws -> T) async throws -> T {
        guard let adminURL else { throw TestFailure("\(environmentVariable) is not set") }
        let name = "latchkey_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await execute("CREATE DATABASE \(name)", on: adminURL)
        do {
            let result = try await body(url(adminURL, database: name))
            try await execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", on: adminURL)
            return result
        } catch {
            try? await execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", on: adminURL)
            throw error
        }
    }

    /// `url` with its database replaced by `database`.
    static func url(_ url: String, database: String) -> String {
        var components = URLComponents(string: url)!
        components.path = "/" + database
        return components.string!
    }

    /// Runs one statement on a short-lived connection to `url`.
    static func execute(_ sql: String, on url: String) async throws {
        let parsed = try PostgresDatabaseURL(url)
        let logger = Logger(label: "test.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        let connection = try await PostgresConnection.connect(configuration: parsed.connectionConfiguration(), id: 1, logger: logger)
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// The first column of the first row `sql` answers on `url`, as text (`nil`: no row, or SQL `NULL`).
    static func text(_ sql: String, on url: String) async throws -> String? {
        let parsed = try PostgresDatabaseURL(url)
        let logger = Logger(label: "test.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        let connection = try await PostgresConnection.connect(configuration: parsed.connectionConfiguration(), id: 1, logger: logger)
        do {
            var value: String?
            for try await (text) in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(String?.self) {
                value = text
                break
            }
            try await connection.close()
            return value
        } catch {
            try? await connection.close()
            throw error
        }
    }
}
