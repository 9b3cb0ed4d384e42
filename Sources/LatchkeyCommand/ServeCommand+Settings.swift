import Foundation
import LatchkeyServer
import Logging

extension ServeCommand {
    /// Logs the settings the server runs with (secrets redacted) and which environment
    /// variables supplied settings (names only), from the one reading in `settings`.
    func logEffectiveSettings(_ settings: Settings, logger: Logger) {
        var metadata = settings.configuration.redactedSettings()
        let secretVariable: String? =
            if case .environment(let name)? = settings.resolution.values[ServerSetting.jwtSecret.id]?.origin { name } else { nil }
        metadata["jwtSecret"] = .string(
            DataOptions.SecretSource(variable: secretVariable, dataDirectory: settings.configuration.dataDirectory).description)
        metadata["logFormat"] = .string(settings.logFormat.rawValue)
        metadata["logLevel"] = .string(settings.logLevel.rawValue)
        let variables = settings.resolution.variables
        if !variables.isEmpty { metadata["fromEnvironment"] = .array(variables.map { .string($0) }) }
        logger.notice("effective settings", metadata: metadata)
    }
}
