import Foundation
import GRDB

/// The reads that several SQLite store operations share, inside their own transaction.
extension SQLiteRows {
    /// The user whose id is `id`, as the store writes it (lower-case text).
    static func user(id: String, _ db: Database) throws -> UserRecord? {
        try db.fetchRow(sql: "\(selectUser) WHERE id = ?", arguments: [id]).map { try user($0) }
    }

    /// The session whose id is `id` (lower-case text).
    static func session(id: String, _ db: Database) throws -> SessionRecord? {
        try db.fetchRow(sql: "\(selectSession) WHERE id = ?", arguments: [id]).map(session)
    }

    /// The user's factors, oldest first.
    static func factors(userID: UUID, _ db: Database) throws -> [FactorRecord] {
        try db.fetchRows(sql: "SELECT * FROM mfa_factors WHERE user_id = ? ORDER BY created_at, id", arguments: [userID.lowercasedString])
            .map(factor)
    }
}
