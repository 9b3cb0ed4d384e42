import Foundation
import GRDB

/// Tells whether anything was committed to a SQLite database since an earlier look, cheaply and
/// without leaving the calling thread.
///
/// It asks SQLite's `PRAGMA data_version` on a connection of its own that never writes: the value
/// changes whenever any other connection — this process's writer, another process such as an
/// import, a restore or a hand-run `sqlite3` — commits a change to the file. Equal versions
/// mean the database holds exactly what it held at the earlier look.
///
/// The connection is read-only and never waits for a lock (SQLite's busy handler is off): a
/// database that is busy, closed or failing answers `nil`, which callers treat as "unknown".
/// Each look is one autocommit statement, so no read transaction stays open to hold back a
/// checkpoint.
final class SQLiteCommitProbe: Sendable {
    private let connection: DatabaseQueue

    /// Opens the probe's connection on the database at `path`, which another connection has
    /// already opened in WAL mode; `nil` when it cannot be opened.
    init?(path: String) {
        var configuration = Configuration()
        configuration.readonly = true
        configuration.busyMode = .immediateError
        configuration.label = "latchkey.commit-probe"
        guard let connection = try? DatabaseQueue(path: path, configuration: configuration) else { return nil }
        self.connection = connection
    }

    /// The database's current data version, or `nil` when it cannot be read now.
    func version() -> Int64? {
        try? connection.inDatabase { db in
            try Int64.fetchOne(db.cachedStatement(sql: "PRAGMA data_version"))
        }
    }

    /// Closes the connection; later looks answer `nil`.
    func close() {
        try? connection.close()
    }
}
