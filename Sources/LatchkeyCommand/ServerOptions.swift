import ArgumentParser
import Foundation
import LatchkeyServer

/// Options shared by `serve` and `keys`: where the server keeps its data and secret.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Folder for the SQLite database, the generated JWT secret and the mail outbox (created 0700).")
    var dataDirectory: String = "./.latchkey"

    /// The JWT secret from the environment, if set.
    var environmentSecret: String? {
        ProcessInfo.processInfo.environment["LATCHKEY_JWT_SECRET"].flatMap { $0.isEmpty ? nil : $0 }
    }

    var dataDirectoryURL: URL { URL(fileURLWithPath: dataDirectory, isDirectory: true).standardizedFileURL }
}
