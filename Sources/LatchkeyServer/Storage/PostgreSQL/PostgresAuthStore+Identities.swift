import Foundation
import LatchkeyWire
import PostgresNIO

/// Identities at external providers on PostgreSQL.
///
/// An identity change runs in a serializable transaction: two first sign-ins of one person,
/// or of two people with one address, on any instances, cannot both create an account (one
/// is retried and then sees the other's).
extension PostgresAuthStore {
    static let identityColumns = "id, provider_id, user_id, provider, identity_data::text, email, last_sign_in_at, created_at, updated_at"

    func identities(userID: UUID) async throws -> [IdentityRecord] {
        try await autocommit { connection in try await connection.selectIdentities(userID: userID, logger: self.logger) }
    }

    func changeIdentities<Result: Sendable>(
        _ lookup: IdentityLookup, plan: @escaping @Sendable (IdentityState) throws -> IdentityPlan<Result>
    ) async throws -> Result {
        try await transaction(isolation: "SERIALIZABLE") { connection in
            var state = IdentityState()
            if let provider = lookup.provider, let subject = lookup.subject {
                state.identity = try await connection.query(
                    "SELECT \(unescaped: Self.identityColumns) FROM identities WHERE provider = \(provider) AND provider_id = \(subject)",
                    logger: self.logger
                ).firstRow(Self.identity)
                if let identity = state.identity {
                    state.identityUser = try await connection.selectUser(id: identity.userID, logger: self.logger)
                }
            }
            if !lookup.emails.isEmpty {
                state.usersWithEmail = try await connection.query(
                    """
                    SELECT \(unescaped: PostgresRows.userColumns) FROM users
                    WHERE email = ANY(\(lookup.emails)) OR id IN (SELECT user_id FROM identities WHERE email = ANY(\(lookup.emails)))
                    """, logger: self.logger
                ).allRows { try PostgresRows.user($0) }
                state.identitiesWithEmail = try await connection.query(
                    "SELECT \(unescaped: Self.identityColumns) FROM identities WHERE email = ANY(\(lookup.emails)) ORDER BY created_at, id",
                    logger: self.logger
                ).allRows(Self.identity)
            }
            if let userID = lookup.userID {
                state.user = try await connection.selectUser(id: userID, logger: self.logger)
                state.userIdentities = try await connection.selectIdentities(userID: userID, logger: self.logger)
            }
            let decided = try plan(state)
            for change in decided.changes {
                try await connection.query(Self.statement(for: change), logger: self.logger)
            }
            return decided.result
        }
    }

    static func identity(_ row: PostgresRow) throws -> IdentityRecord {
        let cells = row.makeRandomAccess()
        return IdentityRecord(
            id: try cells[0].decode(UUID.self), subject: try cells[1].decode(String.self), userID: try cells[2].decode(UUID.self),
            provider: try cells[3].decode(String.self), identityData: .fromJSONString(try cells[4].decode(String.self)),
            email: try cells[5].decode(String?.self), lastSignInAt: try cells[6].decode(Date?.self), createdAt: try cells[7].decode(Date.self),
            updatedAt: try cells[8].decode(Date.self))
    }

    static func statement(for change: IdentityChange) -> PostgresQuery {
        switch change {
        case .insertUser(let user):
            return PostgresRows.insertUser(user)
        case .updateUser(let user):
            return PostgresRows.updateUser(user)
        case .insertIdentity(let identity):
            return """
                INSERT INTO identities (id, provider_id, user_id, provider, identity_data, email, last_sign_in_at, created_at, updated_at)
                VALUES (\(identity.id), \(identity.subject), \(identity.userID), \(identity.provider),
                    \(identity.identityData.jsonString())::jsonb, \(identity.email), \(identity.lastSignInAt), \(identity.createdAt),
                    \(identity.updatedAt))
                """
        case .updateIdentity(let identity):
            return """
                UPDATE identities SET identity_data = \(identity.identityData.jsonString())::jsonb, email = \(identity.email),
                    last_sign_in_at = \(identity.lastSignInAt), updated_at = \(identity.updatedAt)
                WHERE id = \(identity.id)
                """
        case .deleteIdentity(let id):
            return "DELETE FROM identities WHERE id = \(id)"
        case .deleteIdentities(let userID, let kept):
            return "DELETE FROM identities WHERE user_id = \(userID) AND id <> \(kept)"
        case .audit(let entry):
            return PostgresRows.insertAudit(entry).query
        }
    }
}
