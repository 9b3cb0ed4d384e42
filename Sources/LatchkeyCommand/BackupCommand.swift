import ArgumentParser
import Foundation
import GRDB
import LatchkeyServer

/// `latchkey backup`: an online, consistent copy of the SQLite database, safe while `serve` runs.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Copy a server's SQLite database to a file, consistently, while the server runs.",
        discussion: """
            Uses SQLite's online backup API from one read transaction, so the copy holds every committed \
            write up to that moment, including those still in the write-ahead log (copying the file alone \
            loses them). The copy is written next to --to and renamed into place, mode 0600. To restore, stop \
            the server and put the copy at <data-dir>/latchkey.sqlite, removing latchkey.sqlite-wal and \
            latchkey.sqlite-shm. Keep the secret (<data-dir>/jwt-secret or LATCHKEY_JWT_SECRET) as well: \
            it is not in the database. PostgreSQL databases are backed up with pg_dump.
            """)

    @OptionGroup var data: DataOptions
    @Option(
        name: .setting(.database),
        help:
            "The database: sqlite://PATH (default sqlite://<data-dir>/latchkey.sqlite). From the environment as for serve: LATCHKEY_DATABASE_URL, DATABASE_URL, …."
    )
    var database: String?
    @Option(name: .customLong("to"), help: "The backup file to write (replaced if it exists).")
    var destination: String

    func run() throws {
        umask(0o077)
        let source = try sourcePath()
        guard FileManager.default.fileExists(atPath: source) else { throw ValidationError("no database at \(source)") }
        let target = URL(fileURLWithPath: destination).standardizedFileURL
        let partial = target.deletingLastPathComponent().appendingPathComponent(".\(target.lastPathComponent).partial-\(getpid())")
        try? FileManager.default.removeItem(at: partial)
        do {
            var readOnly = Configuration()
            readOnly.readonly = true
            readOnly.busyMode = .timeout(10)
            let from = try DatabasePool(path: source, configuration: readOnly)
            let to = try DatabaseQueue(path: partial.path)
            try from.backup(to: to)
            let check = try to.read { try String.fetchOne($0, sql: "PRAGMA quick_check") }
            try to.close()
            try from.close()
            guard check == "ok" else { throw ValidationError("the copy failed SQLite's check (\(check ?? "no answer")); nothing was replaced") }
            for suffix in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: partial.path + suffix) }
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: partial.path)
            guard rename(partial.path, target.path) == 0 else {
                throw ValidationError("cannot move the backup to \(target.path): \(String(cString: strerror(errno)))")
            }
        } catch let error as DatabaseError {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: partial.path + suffix) }
            throw ValidationError("backup failed: \(error.message ?? error.description)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: target.path)[.size] as? Int) ?? 0
        print("backed up \(source) to \(target.path) (\(size) bytes)")
    }

    /// The SQLite file the options name (`--database`, else the environment's database URL,
    /// else the data directory's database).
    func sourcePath() throws -> String {
        let url = ServerSetting.database.value(given: database, environment: ProcessInfo.processInfo.environment)
        do {
            switch try DatabaseLocation(url: url, dataDirectory: data.dataDirectoryURL) {
            case .sqlite(let path): return path
            case .postgres: throw ValidationError("latchkey backup copies SQLite databases; back PostgreSQL up with pg_dump")
            }
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
    }
}
