import Foundation
import GRDB
import LatchkeyWire

/// Identities at external providers on SQLite.
extension SQLiteAuthStore {
    func identities(userID: UUID) async throws -> [IdentityRecord] {
        try await read(through: identityLists, key: userID) { db in try Self.identities(userID: userID, db) } ?? []
    }

    func changeIdentities<Result: Sendable>(
        _ lookup: IdentityLookup, plan: @escaping @Sendable (IdentityState) throws -> IdentityPlan<Result>
    ) async throws -> Result {
        // SQLite's single writer serialises identity changes: what this reads stays true until commit.
        try await write { db in
            var state = IdentityState()
            if let provider = lookup.provider, let subject = lookup.subject,
                let row = try db.fetchRow(
                    sql: "SELECT * FROM identities WHERE provider = ? AND provider_id = ?", arguments: [provider, subject])
            {
                let identity = try Self.identity(row)
                state.identity = identity
                state.identityUser = try SQLiteRows.user(id: identity.userID.lowercasedString, db)
            }
            if !lookup.emails.isEmpty {
                let marks = Array(repeating: "?", count: lookup.emails.count).joined(separator: ", ")
                let emails = StatementArguments(lookup.emails)
                state.usersWithEmail = try db.fetchRows(
                    sql: "\(SQLiteRows.selectUser) WHERE email IN (\(marks)) OR id IN (SELECT user_id FROM identities WHERE email IN (\(marks)))",
                    arguments: emails + emails
                ).map { try SQLiteRows.user($0) }
                state.identitiesWithEmail = try db.fetchRows(
                    sql: "SELECT * FROM identities WHERE email IN (\(marks)) ORDER BY created_at, id", arguments: emails
                ).map(Self.identity)
            }
            if let userID = lookup.userID {
                state.user = try SQLiteRows.user(id: userID.lowercasedString, db)
                state.userIdentities = try Self.identities(userID: userID, db)
            }
            let decided = try plan(state)
            for change in decided.changes { try Self.apply(change, db) }
            return decided.result
        }
    }

    static func identities(userID: UUID, _ db: Database) throws -> [IdentityRecord] {
        try db.fetchRows(sql: "SELECT * FROM identities WHERE user_id = ? ORDER BY created_at, id", arguments: [userID.lowercasedString])
            .map(identity)
    }

    static func identity(_ row: Row) throws -> IdentityRecord {
        IdentityRecord(
            id: try SQLiteRows.uuid(row, "id", of: "identities"), subject: row["provider_id"],
            userID: try SQLiteRows.uuid(row, "user_id", of: "identities"), provider: row["provider"],
            identityData: .fromJSONString(row["identity_data"]), email: row["email"],
            lastSignInAt: SQLiteRows.date(row["last_sign_in_at"]), createdAt: Date(timeIntervalSince1970: row["created_at"]),
            updatedAt: Date(timeIntervalSince1970: row["updated_at"]))
    }

    /// Writes one row change of an identity operation.
    static func apply(_ change: IdentityChange, _ db: Database) throws {
        switch change {
        case .insertUser(let user):
            try insert(user, db)
        case .updateUser(let user):
            try update(user, db)
        case .insertIdentity(let identity):
            try db.run(
                sql: """
                    INSERT INTO identities (id, provider_id, user_id, provider, identity_data, email, last_sign_in_at, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    identity.id.lowercasedString, identity.subject, identity.userID.lowercasedString, identity.provider,
                    identity.identityData.jsonString(), identity.email, identity.lastSignInAt?.timeIntervalSince1970,
                    identity.createdAt.timeIntervalSince1970, identity.updatedAt.timeIntervalSince1970,
                ])
        case .updateIdentity(let identity):
            try db.run(
                sql: "UPDATE identities SET identity_data = ?, email = ?, last_sign_in_at = ?, updated_at = ? WHERE id = ?",
                arguments: [
                    identity.identityData.jsonString(), identity.email, identity.lastSignInAt?.timeIntervalSince1970,
                    identity.updatedAt.timeIntervalSince1970, identity.id.lowercasedString,
                ])
        case .deleteIdentity(let id):
            try db.run(sql: "DELETE FROM identities WHERE id = ?", arguments: [id.lowercasedString])
        case .deleteIdentities(let userID, let kept):
            try db.run(
                sql: "DELETE FROM identities WHERE user_id = ? AND id <> ?", arguments: [userID.lowercasedString, kept.lowercasedString])
        case .audit(let entry):
            try SQLiteRows.insertAudit(entry, db)
        }
    }
}
