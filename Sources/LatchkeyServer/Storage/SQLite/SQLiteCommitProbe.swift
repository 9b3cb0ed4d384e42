import Foundation
import GRDBSQLite
import NIOConcurrencyHelpers

/// Tells whether anything was committed to a SQLite database since an earlier look, cheaply and
/// without leaving the calling thread.
///
/// It asks SQLite's `PRAGMA data_version` on a connection of its own that never writes: the value
/// changes whenever any other connection — this process's writer, another process such as an
/// import, a restore or a hand-run `sqlite3` — commits a change to the file. Equal versions
/// mean the database holds exactly what it held at the earlier look.
///
/// The connection is read-only and never waits for a lock (it has no busy handler): a database
/// that is busy, closed or failing answers `nil`, which callers treat as "unknown". Each look is
/// one autocommit statement, so no read transaction stays open to hold back a checkpoint.
///
/// It speaks to SQLite's C interface directly, one prepared statement behind a lock, rather than
/// through a GRDB queue: a look is asked up to three times per bearer request, and the queue's
/// dispatch cost more than the statement.
final class SQLiteCommitProbe: Sendable {
    private struct Connection: @unchecked Sendable {
        // Only touched with the lock held.
        var database: OpaquePointer?
        var statement: OpaquePointer?
    }

    private let connection: NIOLockedValueBox<Connection>

    /// Opens the probe's connection on the database at `path`, which another connection has
    /// already opened in WAL mode; `nil` when it cannot be opened.
    init?(path: String) {
        var database: OpaquePointer?
        // NOMUTEX: the lock below serialises every use of the connection.
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX
        guard sqlite3_open_v2(path, &database, flags, nil) == SQLITE_OK, let database else {
            sqlite3_close_v2(database)
            return nil
        }
        var statement: OpaquePointer?
        guard sqlite3_prepare_v3(database, "PRAGMA data_version", -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK,
            let statement
        else {
            sqlite3_close_v2(database)
            return nil
        }
        connection = NIOLockedValueBox(Connection(database: database, statement: statement))
    }

    /// The database's current data version, or `nil` when it cannot be read now.
    func version() -> Int64? {
        connection.withLockedValue { connection in
            guard let statement = connection.statement else { return nil }
            defer { sqlite3_reset(statement) }
            guard sqlite3_step(statement) == SQLITE_ROW else { return nil }
            return sqlite3_column_int64(statement, 0)
        }
    }

    /// Closes the connection; later looks answer `nil`.
    func close() {
        connection.withLockedValue { connection in
            sqlite3_finalize(connection.statement)
            sqlite3_close_v2(connection.database)
            connection = Connection(database: nil, statement: nil)
        }
    }

    deinit {
        close()
    }
}
