import Foundation
import LatchkeyServer
import Logging

extension ServeCommand {
    /// Logs the settings the server runs with (secrets redacted) and which environment
    /// variables supplied options (names only).
    func logEffectiveSettings(_ configuration: ServerConfiguration, logger: Logger) {
        var settings = configuration.redactedSettings()
        settings["jwtSecret"] = .string(data.secretSource.description)
        settings["logFormat"] = .string(logFormat)
        settings["logLevel"] = .string(logLevel)
        let variables = (try? EnvironmentArguments.expand(
            Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment).variables) ?? []
        if !variables.isEmpty { settings["fromEnvironment"] = .array(variables.map { .string($0) }) }
        logger.notice("effective settings", metadata: settings)
    }
}
