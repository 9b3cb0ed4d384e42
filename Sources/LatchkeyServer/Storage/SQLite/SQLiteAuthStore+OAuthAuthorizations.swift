import Foundation
import GRDB

/// The OAuth server's authorizations and consents on SQLite.
extension SQLiteAuthStore {
    func insertOAuthAuthorization(_ authorization: OAuthAuthorizationRecord) async throws {
        let document = try authorization.document()
        try await write { db in
            try db.execute(
                sql: "INSERT INTO oauth_authorizations (id, code_hash, status, user_id, expires_at, document) VALUES (?, ?, ?, ?, ?, ?)",
                arguments: [
                    authorization.id, authorization.codeHash, authorization.status.rawValue, authorization.userID?.lowercasedString,
                    authorization.expiresAt.timeIntervalSince1970, document,
                ])
        }
    }

    func oauthAuthorization(id: String) async throws -> OAuthAuthorizationRecord? {
        try await read { db in
            try String.fetchOne(db, sql: "SELECT document FROM oauth_authorizations WHERE id = ?", arguments: [id])
                .map(OAuthAuthorizationRecord.init(document:))
        }
    }

    func oauthAuthorization(codeHash: String) async throws -> OAuthAuthorizationRecord? {
        try await read { db in
            try String.fetchOne(db, sql: "SELECT document FROM oauth_authorizations WHERE code_hash = ?", arguments: [codeHash])
                .map(OAuthAuthorizationRecord.init(document:))
        }
    }

    func updateOAuthAuthorization(_ updated: OAuthAuthorizationRecord, from previous: OAuthAuthorizationRecord) async throws -> Bool {
        let document = try updated.document()
        return try await write { db in
            try db.execute(
                sql: """
                    UPDATE oauth_authorizations SET code_hash = ?, status = ?, user_id = ?, document = ?
                    WHERE id = ? AND status = ? AND user_id IS ?
                    """,
                arguments: [
                    updated.codeHash, updated.status.rawValue, updated.userID?.lowercasedString, document, previous.id,
                    previous.status.rawValue, previous.userID?.lowercasedString,
                ])
            return db.changesCount > 0
        }
    }

    func oauthConsent(userID: UUID, clientID: UUID) async throws -> OAuthConsentRecord? {
        try await read { db in
            try Row.fetchOne(
                db, sql: "SELECT * FROM oauth_consents WHERE user_id = ? AND client_id = ?",
                arguments: [userID.lowercasedString, clientID.lowercasedString]
            ).map(Self.consent)
        }
    }

    func oauthConsents(userID: UUID) async throws -> [OAuthConsentRecord] {
        try await read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM oauth_consents WHERE user_id = ? AND revoked_at IS NULL ORDER BY granted_at DESC, client_id",
                arguments: [userID.lowercasedString]
            ).map(Self.consent)
        }
    }

    func saveOAuthConsent(_ consent: OAuthConsentRecord) async throws {
        try await write { db in
            try db.execute(
                sql: """
                    INSERT INTO oauth_consents (user_id, client_id, scopes, granted_at, revoked_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (user_id, client_id) DO UPDATE SET scopes = excluded.scopes, granted_at = excluded.granted_at,
                        revoked_at = excluded.revoked_at
                    """,
                arguments: [
                    consent.userID.lowercasedString, consent.clientID.lowercasedString, consent.scopes.joined(separator: " "),
                    consent.grantedAt.timeIntervalSince1970, consent.revokedAt?.timeIntervalSince1970,
                ])
        }
    }

    func revokeOAuthConsent(userID: UUID, clientID: UUID, at date: Date, audit: AuditEntry?) async throws -> Bool {
        try await write { db in
            let user = userID.lowercasedString
            let client = clientID.lowercasedString
            try db.execute(
                sql: "UPDATE oauth_consents SET revoked_at = ? WHERE user_id = ? AND client_id = ? AND revoked_at IS NULL",
                arguments: [date.timeIntervalSince1970, user, client])
            guard db.changesCount > 0 else { return false }
            try db.execute(sql: "DELETE FROM sessions WHERE user_id = ? AND oauth_client_id = ?", arguments: [user, client])
            if let audit { try SQLiteRows.insertAudit(audit, db) }
            return true
        }
    }

    private static func consent(_ row: Row) throws -> OAuthConsentRecord {
        OAuthConsentRecord(
            userID: try SQLiteRows.uuid(row, "user_id", of: "oauth_consents"), clientID: try SQLiteRows.uuid(row, "client_id", of: "oauth_consents"),
            scopes: OAuthScope.parse(row["scopes"]), grantedAt: Date(timeIntervalSince1970: row["granted_at"]),
            revokedAt: SQLiteRows.date(row["revoked_at"]))
    }
}
