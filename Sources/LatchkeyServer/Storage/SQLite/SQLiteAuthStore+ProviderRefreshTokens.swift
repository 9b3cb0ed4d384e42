import Foundation
import GRDB

/// Provider refresh tokens on SQLite: one sealed token per identity, gone with the user.
extension SQLiteAuthStore {
    func keepProviderRefreshToken(_ token: ProviderRefreshTokenRecord) async throws {
        try await write { db in
            try db.run(
                sql: """
                    INSERT INTO provider_refresh_tokens (provider, provider_id, user_id, client_id, sealed_token, created_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (provider, provider_id) DO UPDATE SET
                        user_id = excluded.user_id, client_id = excluded.client_id, sealed_token = excluded.sealed_token,
                        created_at = excluded.created_at
                    """,
                arguments: [
                    token.provider, token.providerID, token.userID.lowercasedString, token.clientID, token.sealedToken,
                    token.createdAt.timeIntervalSince1970,
                ])
        }
    }

    func providerRefreshTokens(userID: UUID) async throws -> [ProviderRefreshTokenRecord] {
        try await read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT provider, provider_id, client_id, sealed_token, created_at FROM provider_refresh_tokens
                    WHERE user_id = ? ORDER BY created_at, provider, provider_id
                    """,
                arguments: [userID.lowercasedString]
            ).map { row in
                ProviderRefreshTokenRecord(
                    userID: userID, provider: row["provider"], providerID: row["provider_id"], clientID: row["client_id"],
                    sealedToken: row["sealed_token"], createdAt: Date(timeIntervalSince1970: row["created_at"]))
            }
        }
    }
}
