import Foundation
import Logging
import NIOConcurrencyHelpers
import PostgresNIO

/// How ``PostgresAuthStore`` runs its work: a pooled connection leased within the store's
/// timeout, an explicit transaction around each call, a retry when PostgreSQL aborts a
/// transaction to resolve a conflict (serialization failure, deadlock), and errors translated
/// into ``StoreError``.
extension PostgresAuthStore {
    /// How often a transaction aborted by a serialization failure or a deadlock is tried again.
    static let conflictRetries = 3
    /// How long a leased connection may take over one call before it is closed as stalled.
    static let stallTimeout: Duration = .seconds(30)

    /// Runs `body` in one transaction (`BEGIN … COMMIT`, `ROLLBACK` when it throws).
    func transaction<T: Sendable>(
        isolation: String? = nil, _ body: @escaping @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        var attempt = 1
        while true {
            do {
                return try await leased { connection in
                    let begin: PostgresQuery = isolation.map { "BEGIN ISOLATION LEVEL \(unescaped: $0)" } ?? "BEGIN"
                    try await connection.query(begin, logger: self.logger)
                    do {
                        let value = try await body(connection)
                        try await connection.query("COMMIT", logger: self.logger)
                        return value
                    } catch {
                        _ = try? await connection.query("ROLLBACK", logger: self.logger)
                        throw error
                    }
                }
            } catch let error as PSQLError where PostgresFailure.isConflict(error) && attempt < Self.conflictRetries {
                attempt += 1
            } catch {
                throw translate(error)
            }
        }
    }

    /// Runs `body` on a pooled connection without an explicit transaction: for a single
    /// statement, which PostgreSQL runs atomically on its own.
    func autocommit<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await leased(body)
        } catch {
            throw translate(error)
        }
    }

    /// Runs `body` on a pooled connection, within the store's bounds (see ``PostgresLeaseGuard``).
    private func leased<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let usage = self.usage
        return try await PostgresLeaseGuard(client: client, leaseTimeout: timeout, stallTimeout: Self.stallTimeout).run { connection in
            try await usage.holding { try await body(connection) }
        }
    }

    /// The error a store caller sees: ``StoreError/duplicateEmail`` for a taken email,
    /// ``StoreError/unavailable(_:)`` for anything that means "the database cannot be used now".
    private func translate(_ error: any Error) -> any Error {
        switch error {
        case is LeaseTimeout:
            return StoreError.unavailable("no database connection within \(timeout) (is PostgreSQL at \(redactedURL) reachable?)")
        case is StalledConnection:
            return StoreError.unavailable("a database connection stopped answering for \(Self.stallTimeout); it was closed")
        case is ClosedBeforeUse:
            return StoreError.unavailable("the database closed the connection")
        default:
            break
        }
        return PostgresFailure.translate(error)
    }
}

/// A flag that is set once and stays set (a pool started).
final class OnceFlag: Sendable {
    private let value = NIOLockedValueBox(false)
    /// Sets the flag; `true` when this call was the one that set it.
    func setIfUnset() -> Bool {
        value.withLockedValue { isSet in
            defer { isSet = true }
            return !isSet
        }
    }
}

/// Classifies PostgreSQL errors.
enum PostgresFailure {
    /// SQLSTATE classes and codes that mean the database cannot serve us right now: connection
    /// exceptions (08), insufficient resources (53), operator intervention (57: shutdown,
    /// restart, "cannot connect now").
    static func isUnavailable(sqlState: String) -> Bool {
        sqlState.hasPrefix("08") || sqlState.hasPrefix("53") || sqlState.hasPrefix("57")
    }

    /// A serialization failure or deadlock: PostgreSQL rolled the transaction back; retry it.
    static func isConflict(_ error: PSQLError) -> Bool {
        guard error.code == .server, let state = error.serverInfo?[.sqlState] else { return false }
        return state == "40001" || state == "40P01"
    }

    /// The error a store caller should see for `error`.
    static func translate(_ error: any Error) -> any Error {
        switch error {
        case is StoreError, is CancellationError, is ConfigurationError, is PostgresDecodingError, is AuthError, is ImportRefusal:
            // An AuthError or ImportRefusal is a plan's answer (an identity already linked, a row
            // an import cannot take), not the database's.
            return error
        case let error as PSQLError where error.code == .server:
            let state = error.serverInfo?[.sqlState] ?? ""
            if state == "23505", error.serverInfo?[.constraintName] == "users_email_key" { return StoreError.duplicateEmail }
            if state == "23505", error.serverInfo?[.constraintName] == "users_phone_key" { return StoreError.duplicatePhone }
            if state == "23505", error.serverInfo?[.constraintName] == "users_pkey" { return StoreError.duplicateUserID }
            if state == "23505", error.serverInfo?[.constraintName] == "webauthn_credentials_credential_id_key" {
                return StoreError.duplicateCredential
            }
            if isUnavailable(sqlState: state) { return StoreError.unavailable("database refused: SQLSTATE \(state)") }
            if isConflict(error) { return StoreError.unavailable("database conflict persisted: SQLSTATE \(state)") }
            return error
        default:
            // Connection failures, a closed pool, a circuit breaker, TLS or socket errors.
            return StoreError.unavailable("database unreachable: \(describe(error))")
        }
    }

    /// A short description with no query text, parameters or credentials in it.
    static func describe(_ error: any Error) -> String {
        if let error = error as? PSQLError {
            if error.code == .server, let state = error.serverInfo?[.sqlState] {
                return "SQLSTATE \(state) \(error.serverInfo?[.message] ?? "")"
            }
            return "\(error.code)" + (error.underlying.map { " (\(type(of: $0)): \($0))" } ?? "")
        }
        return "\(type(of: error)): \(error)"
    }
}

extension PostgresRowSequence {
    /// The first row, transformed; `nil` when there is none.
    func firstRow<T>(_ transform: (PostgresRow) throws -> T) async throws -> T? {
        try await collect().first.map(transform)
    }

    /// Every row, transformed.
    func allRows<T>(_ transform: (PostgresRow) throws -> T) async throws -> [T] {
        try await collect().map(transform)
    }

    /// How many rows came back.
    func rowCount() async throws -> Int {
        try await collect().count
    }
}
