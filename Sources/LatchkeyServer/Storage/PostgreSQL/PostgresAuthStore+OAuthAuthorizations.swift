import Foundation
import PostgresNIO

/// The OAuth server's authorizations and consents on PostgreSQL.
extension PostgresAuthStore {
    func insertOAuthAuthorization(_ authorization: OAuthAuthorizationRecord) async throws {
        let document = try authorization.document()
        try await autocommit { connection in
            _ = try await connection.query(
                """
                INSERT INTO oauth_authorizations (id, code_hash, status, user_id, expires_at, document)
                VALUES (\(authorization.id), \(authorization.codeHash), \(authorization.status.rawValue), \(authorization.userID),
                    \(authorization.expiresAt), \(document))
                """, logger: self.logger)
        }
    }

    func oauthAuthorization(id: String) async throws -> OAuthAuthorizationRecord? {
        try await autocommit { connection in
            try await connection.query("SELECT document FROM oauth_authorizations WHERE id = \(id)", logger: self.logger)
                .firstRow { row in try OAuthAuthorizationRecord(document: try row.decode(String.self)) }
        }
    }

    func oauthAuthorization(codeHash: String) async throws -> OAuthAuthorizationRecord? {
        try await autocommit { connection in
            try await connection.query("SELECT document FROM oauth_authorizations WHERE code_hash = \(codeHash)", logger: self.logger)
                .firstRow { row in try OAuthAuthorizationRecord(document: try row.decode(String.self)) }
        }
    }

    func updateOAuthAuthorization(_ updated: OAuthAuthorizationRecord, from previous: OAuthAuthorizationRecord) async throws -> Bool {
        let document = try updated.document()
        return try await autocommit { connection in
            try await connection.query(
                """
                UPDATE oauth_authorizations SET code_hash = \(updated.codeHash), status = \(updated.status.rawValue),
                    user_id = \(updated.userID), document = \(document)
                WHERE id = \(previous.id) AND status = \(previous.status.rawValue) AND user_id IS NOT DISTINCT FROM \(previous.userID)
                RETURNING id
                """, logger: self.logger
            ).rowCount() > 0
        }
    }

    func oauthConsent(userID: UUID, clientID: UUID) async throws -> OAuthConsentRecord? {
        try await autocommit { connection in
            try await connection.query(
                """
                SELECT user_id, client_id, scopes, granted_at, revoked_at FROM oauth_consents
                WHERE user_id = \(userID) AND client_id = \(clientID)
                """, logger: self.logger
            ).firstRow(Self.consent)
        }
    }

    func oauthConsents(userID: UUID) async throws -> [OAuthConsentRecord] {
        try await autocommit { connection in
            try await connection.query(
                """
                SELECT user_id, client_id, scopes, granted_at, revoked_at FROM oauth_consents
                WHERE user_id = \(userID) AND revoked_at IS NULL ORDER BY granted_at DESC, client_id
                """, logger: self.logger
            ).allRows(Self.consent)
        }
    }

    func saveOAuthConsent(_ consent: OAuthConsentRecord) async throws {
        let scopes = consent.scopes.joined(separator: " ")
        try await autocommit { connection in
            _ = try await connection.query(
                """
                INSERT INTO oauth_consents (user_id, client_id, scopes, granted_at, revoked_at)
                VALUES (\(consent.userID), \(consent.clientID), \(scopes), \(consent.grantedAt), \(consent.revokedAt))
                ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = EXCLUDED.scopes, granted_at = EXCLUDED.granted_at,
                    revoked_at = EXCLUDED.revoked_at
                """, logger: self.logger)
        }
    }

    func revokeOAuthConsent(userID: UUID, clientID: UUID, at date: Date, audit: AuditEntry?) async throws -> Bool {
        try await transaction { connection in
            let revoked = try await connection.query(
                """
                UPDATE oauth_consents SET revoked_at = \(date)
                WHERE user_id = \(userID) AND client_id = \(clientID) AND revoked_at IS NULL RETURNING user_id
                """, logger: self.logger
            ).rowCount()
            guard revoked > 0 else { return false }
            _ = try await connection.query(
                "DELETE FROM sessions WHERE user_id = \(userID) AND oauth_client_id = \(clientID)", logger: self.logger)
            if let audit { try await connection.query(PostgresRows.insertAudit(audit).query, logger: self.logger) }
            return true
        }
    }

    private static func consent(_ row: PostgresRow) throws -> OAuthConsentRecord {
        let (userID, clientID, scopes, grantedAt, revokedAt) = try row.decode((UUID, UUID, String, Date, Date?).self)
        return OAuthConsentRecord(userID: userID, clientID: clientID, scopes: OAuthScope.parse(scopes), grantedAt: grantedAt, revokedAt: revokedAt)
    }
}
