import Foundation
import GRDB

/// Custom providers on SQLite: one JSON document per provider.
extension SQLiteAuthStore {
    func customProviders() async throws -> [CustomProviderRecord] {
        try await read { db in
            try String.fetchAll(db, sql: "SELECT document FROM custom_providers ORDER BY identifier").map(CustomProviderRecord.init(document:))
        }
    }

    func customProvider(identifier: String) async throws -> CustomProviderRecord? {
        try await read { db in
            try String.fetchOne(db, sql: "SELECT document FROM custom_providers WHERE identifier = ?", arguments: [identifier])
                .map(CustomProviderRecord.init(document:))
        }
    }

    func insertCustomProvider(_ provider: CustomProviderRecord) async throws -> Bool {
        let document = try provider.document()
        return try await write { db in
            try db.execute(
                sql: "INSERT INTO custom_providers (identifier, document) VALUES (?, ?) ON CONFLICT (identifier) DO NOTHING",
                arguments: [provider.identifier, document])
            return db.changesCount > 0
        }
    }

    func updateCustomProvider(_ provider: CustomProviderRecord) async throws -> Bool {
        let document = try provider.document()
        return try await write { db in
            try db.execute(
                sql: "UPDATE custom_providers SET document = ? WHERE identifier = ?", arguments: [document, provider.identifier])
            return db.changesCount > 0
        }
    }

    func deleteCustomProvider(identifier: String) async throws -> Bool {
        try await write { db in
            try db.execute(sql: "DELETE FROM custom_providers WHERE identifier = ?", arguments: [identifier])
            return db.changesCount > 0
        }
    }
}
