import Foundation
import PostgresNIO

/// The OAuth server's clients on PostgreSQL: one JSON document per client.
extension PostgresAuthStore {
    func oauthClients() async throws -> [OAuthClientRecord] {
        try await autocommit { connection in
            try await connection.query(
                "SELECT document FROM oauth_clients WHERE NOT deleted ORDER BY created_at DESC, id", logger: self.logger
            ).allRows { row in try OAuthClientRecord(document: try row.decode(String.self)) }
        }
    }

    func oauthClient(id: UUID) async throws -> OAuthClientRecord? {
        try await autocommit { connection in
            try await connection.query("SELECT document FROM oauth_clients WHERE id = \(id) AND NOT deleted", logger: self.logger)
                .firstRow { row in try OAuthClientRecord(document: try row.decode(String.self)) }
        }
    }

    func insertOAuthClient(_ client: OAuthClientRecord) async throws {
        let document = try client.document()
        try await autocommit { connection in
            _ = try await connection.query(
                "INSERT INTO oauth_clients (id, created_at, deleted, document) VALUES (\(client.id), \(client.createdAt), false, \(document))",
                logger: self.logger)
        }
    }

    func updateOAuthClient(_ client: OAuthClientRecord) async throws -> Bool {
        let document = try client.document()
        let deleted = client.deletedAt != nil
        return try await autocommit { connection in
            try await connection.query(
                """
                UPDATE oauth_clients SET document = \(document), deleted = \(deleted)
                WHERE id = \(client.id) AND NOT deleted RETURNING id
                """, logger: self.logger
            ).rowCount() > 0
        }
    }
}
