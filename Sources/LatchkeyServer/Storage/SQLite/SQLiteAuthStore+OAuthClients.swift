import Foundation
import GRDB

/// The OAuth server's clients on SQLite: one JSON document per client.
extension SQLiteAuthStore {
    func oauthClients() async throws -> [OAuthClientRecord] {
        try await read { db in
            try String.fetchAll(db, sql: "SELECT document FROM oauth_clients WHERE deleted = 0 ORDER BY created_at DESC, id")
                .map(OAuthClientRecord.init(document:))
        }
    }

    func oauthClient(id: UUID) async throws -> OAuthClientRecord? {
        try await read { db in
            try String.fetchOne(db, sql: "SELECT document FROM oauth_clients WHERE id = ? AND deleted = 0", arguments: [id.lowercasedString])
                .map(OAuthClientRecord.init(document:))
        }
    }

    func insertOAuthClient(_ client: OAuthClientRecord) async throws {
        let document = try client.document()
        try await write { db in
            try db.execute(
                sql: "INSERT INTO oauth_clients (id, created_at, deleted, document) VALUES (?, ?, 0, ?)",
                arguments: [client.id.lowercasedString, client.createdAt.timeIntervalSince1970, document])
        }
    }

    func updateOAuthClient(_ client: OAuthClientRecord) async throws -> Bool {
        let document = try client.document()
        return try await write { db in
            try db.execute(
                sql: "UPDATE oauth_clients SET document = ?, deleted = ? WHERE id = ? AND deleted = 0",
                arguments: [document, client.deletedAt == nil ? 0 : 1, client.id.lowercasedString])
            return db.changesCount > 0
        }
    }
}
