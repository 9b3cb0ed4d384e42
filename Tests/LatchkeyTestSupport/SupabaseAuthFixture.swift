import Foundation
import Logging
import PostgresNIO

/// A Supabase-shaped `auth` schema on the tests' PostgreSQL (`LATCHKEY_TEST_POSTGRES_URL`, which
/// scripts/test.sh sets): a fresh database per test, GoTrue's tables created by ``schema()``, rows
/// inserted with plain SQL, the database dropped afterwards.
package enum SupabaseAuthFixture {
    package static var adminURL: String? {
        ProcessInfo.processInfo.environment["LATCHKEY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    package static var isAvailable: Bool { adminURL != nil }

    package static let skipReason =
        "LATCHKEY_TEST_POSTGRES_URL is not set: the Supabase import tests need PostgreSQL (scripts/test.sh starts a throwaway server)"

    /// The tables and columns an import reads, in the shapes of GoTrue's migrations: the
    /// statements of `scripts/supabase-auth-schema.sql`, which the README's sample database
    /// (`scripts/sample-supabase-database.sh`) is made from too.
    package static func schema() throws -> [String] {
        let file = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("scripts/supabase-auth-schema.sql")
        let sql = try String(contentsOf: file, encoding: .utf8).split(separator: "\n").filter { !$0.hasPrefix("--") }
            .joined(separator: "\n")
        return sql.components(separatedBy: ";\n").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }.map { $0.hasSuffix(";") ? String($0.dropLast()) : $0 }
    }

    /// Runs `body` with the URL of a new database holding ``schema()``; drops the database afterwards.
    package static func with<T>(_ body: (String) async throws -> T) async throws -> T {
        guard let adminURL else { throw PythonPeer.PeerFailure(description: "LATCHKEY_TEST_POSTGRES_URL is not set") }
        let name = "supabase_test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
        try await execute(["CREATE DATABASE \(name)"], on: adminURL)
        var components = URLComponents(string: adminURL)!
        components.path = "/" + name
        let url = components.string!
        do {
            try await execute(try schema(), on: url)
            let result = try await body(url)
            try await execute(["DROP DATABASE IF EXISTS \(name) WITH (FORCE)"], on: adminURL)
            return result
        } catch {
            try? await execute(["DROP DATABASE IF EXISTS \(name) WITH (FORCE)"], on: adminURL)
            throw error
        }
    }

    /// Runs each statement, in order, on one short-lived connection to `url` (a trusting test
    /// cluster: the URL's password, if any, is used as is, without TLS).
    package static func execute(_ statements: [String], on url: String) async throws {
        let components = URLComponents(string: url)!
        let configuration = PostgresConnection.Configuration(
            host: components.host ?? "127.0.0.1", port: components.port ?? 5432, username: components.user ?? "postgres",
            password: components.password, database: String(components.path.dropFirst()), tls: .disable)
        let logger = Logger(label: "test.supabase", factory: { _ in SwiftLogNoOpLogHandler() })
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        do {
            for statement in statements { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
            try await connection.close()
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// `bytes` as a SQL `bytea` literal (`'\x…'::bytea`), as GoTrue's driver writes a Go `[]byte`.
    package static func bytea(_ bytes: [UInt8]) -> String {
        "'\\x" + bytes.map { String(format: "%02x", $0) }.joined() + "'::bytea"
    }

    /// `text` as a SQL string literal (`NULL` for `nil`).
    package static func literal(_ text: String?) -> String {
        guard let text else { return "NULL" }
        return "'" + text.replacingOccurrences(of: "'", with: "''") + "'"
    }
}
