import ArgumentParser
import Foundation
import LatchkeyServer
import Logging

/// The database `latchkey oauth clients` works on, named as for `serve` (`--data-dir`,
/// `--database` and the environment), and how its failures are told.
struct OAuthClientsOptions: ParsableArguments {
    @OptionGroup var database: DatabaseOptions

    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) -> ServerConfiguration {
        database.configuration(environment: environment)
    }

    /// Runs `body` with the registry on the opened database, closing it afterwards. A refusal is
    /// one line on stderr and exit status 2, a database failure exit status 4.
    /// - Parameter creating: whether a SQLite database that does not exist yet may be created
    ///   (registering a client before the server first ran); listing and removing refuse.
    func withRegistry<T>(creating: Bool, _ body: (OAuthClientAdministration) async throws -> T) async throws -> T {
        let configuration = configuration()
        let location: DatabaseLocation
        do {
            location = try DatabaseLocation(url: configuration.databaseURL, dataDirectory: configuration.dataDirectory)
        } catch {
            throw OAuthClientsFailure.usage(error.description)
        }
        if !creating, case .sqlite(let path) = location, !FileManager.default.fileExists(atPath: path) {
            throw OAuthClientsFailure.usage("no database at \(path) (give the server's --data-dir or --database)")
        }
        let logger = Logger(label: "latchkey-oauth", factory: { _ in SwiftLogNoOpLogHandler() })
        let store: any AuthStore
        do {
            store = try await LatchkeyApplication.openStore(configuration, logger: logger)
        } catch {
            throw OAuthClientsFailure(.other, "cannot open the database: \(error)")
        }
        do {
            let result = try await body(OAuthClientAdministration(store: store))
            try await store.close()
            return result
        } catch {
            try? await store.close()
            throw error
        }
    }
}

/// A `latchkey oauth clients` failure: one line on stderr, and its exit status.
struct OAuthClientsFailure: Error, Equatable {
    var status: ExitStatus
    var message: String

    init(_ status: ExitStatus, _ message: String) {
        self.status = status
        self.message = message
    }

    static func usage(_ message: String) -> OAuthClientsFailure { OAuthClientsFailure(.usage, message) }

    /// Runs a subcommand's `body`, telling any failure as one line and exiting with its status:
    /// a registry refusal (a refused value, an unknown client) is 2, anything else 4.
    static func reporting(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let exit as ExitCode {
            throw exit
        } catch {
            let failure: OAuthClientsFailure =
                switch error {
                case let failure as OAuthClientsFailure: failure
                case let refusal as OAuthClientAdministration.Refusal: .usage(refusal.message)
                default: OAuthClientsFailure(.other, "the database failed: \(error)")
                }
            Terminal.writeError("latchkey: \(TerminalText.printable(failure.message))\n")
            throw failure.status.exitCode
        }
    }
}
