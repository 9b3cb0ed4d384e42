import Foundation
import PostgresNIO

/// Custom providers on PostgreSQL: one JSON document per provider.
extension PostgresAuthStore {
    func customProviders() async throws -> [CustomProviderRecord] {
        try await autocommit { connection in
            try await connection.query("SELECT document FROM custom_providers ORDER BY identifier", logger: self.logger).allRows { row in
                try CustomProviderRecord(document: try row.decode(String.self))
            }
        }
    }

    func customProvider(identifier: String) async throws -> CustomProviderRecord? {
        try await autocommit { connection in
            try await connection.query("SELECT document FROM custom_providers WHERE identifier = \(identifier)", logger: self.logger)
                .firstRow { row in try CustomProviderRecord(document: try row.decode(String.self)) }
        }
    }

    func insertCustomProvider(_ provider: CustomProviderRecord) async throws -> Bool {
        let document = try provider.document()
        return try await autocommit { connection in
            try await connection.query(
                """
                INSERT INTO custom_providers (identifier, document) VALUES (\(provider.identifier), \(document))
                ON CONFLICT (identifier) DO NOTHING RETURNING identifier
                """, logger: self.logger
            ).rowCount() > 0
        }
    }

    func updateCustomProvider(_ provider: CustomProviderRecord) async throws -> Bool {
        let document = try provider.document()
        return try await autocommit { connection in
            try await connection.query(
                "UPDATE custom_providers SET document = \(document) WHERE identifier = \(provider.identifier) RETURNING identifier",
                logger: self.logger
            ).rowCount() > 0
        }
    }

    func deleteCustomProvider(identifier: String) async throws -> Bool {
        try await autocommit { connection in
            try await connection.query("DELETE FROM custom_providers WHERE identifier = \(identifier) RETURNING identifier", logger: self.logger)
                .rowCount() > 0
        }
    }
}
