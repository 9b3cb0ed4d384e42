import Foundation

/// Where the server's data lives, from a database URL: `sqlite://PATH` (or `sqlite:PATH`), by
/// default `<data-dir>/latchkey.sqlite`, or a PostgreSQL `postgres://…` / `postgresql://…` URL.
///
/// The one reading of ``ServerConfiguration/databaseURL`` that `serve` and `backup` share.
package enum DatabaseLocation: Equatable, Sendable {
    /// A SQLite database file.
    case sqlite(path: String)
    /// A PostgreSQL server (the URL may hold a password: never log it as it is).
    case postgres(url: String)

    /// The database file in `dataDirectory` when no URL is given.
    package static func defaultSQLitePath(in dataDirectory: URL) -> String {
        dataDirectory.appendingPathComponent("latchkey.sqlite").path
    }

    /// The location `url` names, or the default SQLite file in `dataDirectory` when `url` is `nil`.
    /// Errors name the setting (``ServerSetting/database``) and never echo the URL.
    package init(url: String?, dataDirectory: URL) throws(ConfigurationError) {
        guard let url else {
            self = .sqlite(path: Self.defaultSQLitePath(in: dataDirectory))
            return
        }
        for prefix in ["sqlite://", "sqlite:"] where url.hasPrefix(prefix) {
            let path = String(url.dropFirst(prefix.count))
            guard !path.isEmpty else {
                throw ServerSetting.database.error("sqlite:// needs a file path, such as sqlite://./data/latchkey.sqlite")
            }
            self = .sqlite(path: path)
            return
        }
        if url.hasPrefix("postgres://") || url.hasPrefix("postgresql://") {
            self = .postgres(url: url)
            return
        }
        throw ServerSetting.database.error("must be a sqlite:// or postgres:// URL")
    }
}

extension ServerConfiguration {
    /// Where this configuration keeps its data (see ``DatabaseLocation``).
    func databaseLocation() throws(ConfigurationError) -> DatabaseLocation {
        try DatabaseLocation(url: databaseURL, dataDirectory: dataDirectory)
    }
}
