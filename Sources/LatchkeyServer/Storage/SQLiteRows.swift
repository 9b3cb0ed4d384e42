import Foundation
import GRDB

/// Mapping between records and SQLite rows. Dates are seconds since 1970 (DOUBLE).
enum SQLiteRows {
    static func date(_ value: Double?) -> Date? { value.map(Date.init(timeIntervalSince1970:)) }
    static func uuid(_ value: String) -> UUID { UUID(uuidString: value) ?? UUID() }

    static func user(_ row: Row, prefix: String = "") -> UserRecord {
        UserRecord(
            id: uuid(row[prefix + "id"]), aud: row[prefix + "aud"], role: row[prefix + "role"], email: row[prefix + "email"],
            passwordHash: row[prefix + "password_hash"],
            emailConfirmedAt: date(row[prefix + "email_confirmed_at"]),
            confirmationSentAt: date(row[prefix + "confirmation_sent_at"]),
            recoverySentAt: date(row[prefix + "recovery_sent_at"]),
            newEmail: row[prefix + "new_email"],
            emailChangeSentAt: date(row[prefix + "email_change_sent_at"]),
            lastSignInAt: date(row[prefix + "last_sign_in_at"]),
            bannedUntil: date(row[prefix + "banned_until"]),
            appMetadata: .fromJSONString(row[prefix + "app_metadata"]),
            userMetadata: .fromJSONString(row[prefix + "user_metadata"]),
            createdAt: Date(timeIntervalSince1970: row[prefix + "created_at"]),
            updatedAt: Date(timeIntervalSince1970: row[prefix + "updated_at"]))
    }

    static func userArguments(_ user: UserRecord) -> StatementArguments {
        [
            user.id.uuidString.lowercased(), user.aud, user.role, user.email, user.passwordHash,
            user.emailConfirmedAt?.timeIntervalSince1970, user.confirmationSentAt?.timeIntervalSince1970,
            user.recoverySentAt?.timeIntervalSince1970, user.newEmail, user.emailChangeSentAt?.timeIntervalSince1970,
            user.lastSignInAt?.timeIntervalSince1970, user.bannedUntil?.timeIntervalSince1970,
            user.appMetadata.jsonString(), user.userMetadata.jsonString(),
            user.createdAt.timeIntervalSince1970, user.updatedAt.timeIntervalSince1970,
        ]
    }

    static let userColumns = """
        id, aud, role, email, password_hash, email_confirmed_at, confirmation_sent_at, recovery_sent_at, \
        new_email, email_change_sent_at, last_sign_in_at, banned_until, app_metadata, user_metadata, created_at, updated_at
        """

    static func session(_ row: Row) -> SessionRecord {
        SessionRecord(
            id: uuid(row["id"]), userID: uuid(row["user_id"]),
            createdAt: Date(timeIntervalSince1970: row["created_at"]),
            updatedAt: Date(timeIntervalSince1970: row["updated_at"]),
            refreshedAt: Date(timeIntervalSince1970: row["refreshed_at"]),
            notAfter: date(row["not_after"]), authMethod: row["auth_method"])
    }

    static func refreshToken(_ row: Row) -> RefreshTokenRecord {
        RefreshTokenRecord(
            id: row["id"], tokenHash: row["token_hash"], sessionID: uuid(row["session_id"]), userID: uuid(row["user_id"]),
            parentHash: row["parent_hash"], revokedAt: date(row["revoked_at"]),
            createdAt: Date(timeIntervalSince1970: row["created_at"]))
    }

    static func audit(_ row: Row) -> AuditEntry {
        var entry = AuditEntry(
            id: uuid(row["id"]), action: AuditEntry.Action(rawValue: row["action"]) ?? .userModified,
            actorID: (row["actor_id"] as String?).flatMap(UUID.init(uuidString:)), actorUsername: row["actor_username"],
            traits: .fromJSONString(row["traits"]), ipAddress: row["ip_address"],
            createdAt: Date(timeIntervalSince1970: row["created_at"]))
        entry.logType = row["log_type"]
        return entry
    }

    static func insertAudit(_ entry: AuditEntry, _ db: Database) throws {
        try db.run(
            sql: """
                INSERT INTO audit_log (id, action, actor_id, actor_username, log_type, traits, ip_address, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                entry.id.uuidString.lowercased(), entry.action.rawValue, entry.actorID?.uuidString.lowercased(),
                entry.actorUsername, entry.logType, entry.traits.jsonString(), entry.ipAddress,
                entry.createdAt.timeIntervalSince1970,
            ])
    }
}

extension Database {
    /// Statements are compiled once per connection and reused: the hot paths (bearer checks,
    /// refresh rotation) run the same few statements over and over.
    func fetchRow(sql: String, arguments: StatementArguments = []) throws -> Row? {
        try Row.fetchOne(cachedStatement(sql: sql), arguments: arguments)
    }

    func fetchRows(sql: String, arguments: StatementArguments = []) throws -> [Row] {
        try Row.fetchAll(cachedStatement(sql: sql), arguments: arguments)
    }

    func fetchInt(sql: String, arguments: StatementArguments = []) throws -> Int? {
        try Int.fetchOne(cachedStatement(sql: sql), arguments: arguments)
    }

    func run(sql: String, arguments: StatementArguments = []) throws {
        try cachedStatement(sql: sql).execute(arguments: arguments)
    }
}
