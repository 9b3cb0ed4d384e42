import Foundation
import Logging
import PostgresNIO

/// The reads that several PostgreSQL store operations share, on the connection (and so in the
/// transaction) they run on.
extension PostgresConnection {
    func selectUser(id: UUID, logger: Logger) async throws -> UserRecord? {
        try await query("SELECT \(unescaped: PostgresRows.userColumns) FROM users WHERE id = \(id)", logger: logger)
            .firstRow { try PostgresRows.user($0) }
    }

    /// The user's factors, oldest first.
    func selectFactors(userID: UUID, logger: Logger) async throws -> [FactorRecord] {
        try await query(
            "SELECT \(unescaped: PostgresRows.factorColumns) FROM mfa_factors WHERE user_id = \(userID) ORDER BY created_at, id", logger: logger
        ).allRows(PostgresRows.factor)
    }

    /// The user's identities, oldest first.
    func selectIdentities(userID: UUID, logger: Logger) async throws -> [IdentityRecord] {
        try await query(
            "SELECT \(unescaped: PostgresAuthStore.identityColumns) FROM identities WHERE user_id = \(userID) ORDER BY created_at, id",
            logger: logger
        ).allRows(PostgresAuthStore.identity)
    }
}
