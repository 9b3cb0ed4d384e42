import ArgumentParser
import Foundation
import LatchkeyServer
import Logging

/// Where an import writes: the database the server uses, named as for `serve` (`--data-dir`,
/// `--database` and the environment).
struct ImportDestinationOptions: ParsableArguments {
    @OptionGroup var database: DatabaseOptions

    /// The server's configuration as far as an import needs it: the data directory, the
    /// database and the JWT secret (which seals imported factor secrets).
    func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) -> ServerConfiguration {
        var configuration = database.configuration(environment: environment)
        configuration.jwtSecret = ServerSetting.jwtSecret.value(given: nil, environment: environment)
        return configuration
    }

    /// Runs `body` with the store opened, closing it afterwards; a failure is reported as an
    /// interrupted import that a re-run continues.
    func withStore<T>(
        _ configuration: ServerConfiguration, logger: Logger, _ body: (any AuthStore) async throws -> T
    ) async throws -> T {
        do {
            let store = try await LatchkeyApplication.openStore(configuration, logger: logger)
            do {
                let result = try await body(store)
                try await store.close()
                return result
            } catch {
                try? await store.close()
                throw error
            }
        } catch {
            Terminal.writeError("Error: the import stopped (\(error)); running it again continues where it stopped\n")
            throw ExitCode.failure
        }
    }
}
