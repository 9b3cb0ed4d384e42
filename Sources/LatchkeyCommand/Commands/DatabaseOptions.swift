import ArgumentParser
import Foundation
import LatchkeyServer

/// The database a command works on directly, named as for `serve`: `--data-dir`, `--database`
/// and the environment.
struct DatabaseOptions: ParsableArguments {
    @OptionGroup var data: DataOptions
    @Option(
        name: .setting(.database),
        help: "The database: sqlite://PATH (default sqlite://<data-dir>/latchkey.sqlite) or postgres://…. From the environment as for serve."
    )
    var database: String?

    /// The server's configuration as far as the database goes: `--database`, else the
    /// environment's database URL, else the data directory's SQLite file.
    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) -> ServerConfiguration {
        var configuration = ServerConfiguration(dataDirectory: data.dataDirectoryURL)
        configuration.databaseURL = ServerSetting.database.value(given: database, environment: environment)
        return configuration
    }
}
