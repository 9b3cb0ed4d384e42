import Foundation
import GRDB
import PostgresNIO

@testable import LatchkeyServer

/// Faults put into a store's own database, so a test can see what a transaction leaves behind
/// when one of its statements fails half-way.
enum FaultInjection {
    /// From now on every `DELETE` from `table` fails (a trigger raises), in the database under
    /// `store`, whichever of the two stores it is.
    static func failDeletes(from table: String, in store: any AuthStore) async throws {
        switch store {
        case let sqlite as SQLiteAuthStore:
            try await sqlite.write { db in
                try db.execute(
                    sql: "CREATE TRIGGER injected_fault_\(table) BEFORE DELETE ON \(table) BEGIN SELECT RAISE(ABORT, 'injected fault'); END")
            }
        case let postgres as PostgresAuthStore:
            try await postgres.autocommit { connection in
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL:
                            "CREATE OR REPLACE FUNCTION injected_fault() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'injected fault'; END $$"
                    ),
                    logger: Logger(label: "fault"))
                try await connection.query(
                    PostgresQuery(
                        unsafeSQL: "CREATE TRIGGER injected_fault_\(table) BEFORE DELETE ON \(table) FOR EACH ROW EXECUTE FUNCTION injected_fault()"),
                    logger: Logger(label: "fault"))
            }
        default:
            fatalError("no fault injection for \(type(of: store))")
        }
    }
}
