import Foundation
import PostgresNIO

/// Provider refresh tokens on PostgreSQL: one sealed token per identity, gone with the user.
extension PostgresAuthStore {
    func keepProviderRefreshToken(_ token: ProviderRefreshTokenRecord) async throws {
        try await autocommit { connection in
            try await connection.query(
                """
                INSERT INTO provider_refresh_tokens (provider, provider_id, user_id, client_id, sealed_token, created_at)
                VALUES (\(token.provider), \(token.providerID), \(token.userID), \(token.clientID), \(token.sealedToken), \(token.createdAt))
                ON CONFLICT (provider, provider_id) DO UPDATE SET
                    user_id = excluded.user_id, client_id = excluded.client_id, sealed_token = excluded.sealed_token,
                    created_at = excluded.created_at
                """, logger: self.logger)
            return ()
        }
    }

    func providerRefreshTokens(userID: UUID) async throws -> [ProviderRefreshTokenRecord] {
        try await autocommit { connection in
            try await connection.query(
                """
                SELECT provider, provider_id, client_id, sealed_token, created_at FROM provider_refresh_tokens
                WHERE user_id = \(userID) ORDER BY created_at, provider, provider_id
                """, logger: self.logger
            ).allRows { row in
                let (provider, providerID, clientID, sealed, createdAt) = try row.decode((String, String, String, String, Date).self)
                return ProviderRefreshTokenRecord(
                    userID: userID, provider: provider, providerID: providerID, clientID: clientID, sealedToken: sealed, createdAt: createdAt)
            }
        }
    }
}
