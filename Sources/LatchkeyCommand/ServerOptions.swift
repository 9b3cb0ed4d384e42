import ArgumentParser
import Foundation
import LatchkeyServer

/// Options shared by `serve`, `keys` and `backup`: where the server keeps its data and secret.
struct DataOptions: ParsableArguments {
    @Option(name: .setting(.dataDirectory), help: .setting(.dataDirectory))
    var dataDirectory: String?

    /// The variables a JWT secret is read from, in order (GoTrue's name second).
    static var secretVariables: [String] { ServerSetting.jwtSecret.variableNames }

    /// The JWT secret from the environment, if set.
    var environmentSecret: String? {
        Self.environmentSecret(in: ProcessInfo.processInfo.environment)?.secret
    }

    static func environmentSecret(in environment: [String: String]) -> (variable: String, secret: String)? {
        for variable in secretVariables {
            if let value = environment[variable], !value.isEmpty { return (variable, value) }
        }
        return nil
    }

    /// Where the secret comes from, as `serve` and `keys` say it (never the secret itself).
    enum SecretSource: CustomStringConvertible, Equatable {
        case environment(String)
        case file(String)
        case missing(String)

        var description: String {
            switch self {
            case .environment(let variable): "the environment (\(variable))"
            case .file(let path): "the data directory's secret file (\(path))"
            case .missing(let path): "none yet: serve generates \(path) on its first start"
            }
        }

        /// The source of a server's secret: `variable` when the environment gave it, else the
        /// secret file in `dataDirectory`, which may not exist yet.
        init(variable: String?, dataDirectory: URL) {
            if let variable {
                self = .environment(variable)
                return
            }
            let file = ServerKeys.secretFile(in: dataDirectory).path
            self = FileManager.default.fileExists(atPath: file) ? .file(file) : .missing(file)
        }
    }

    var secretSource: SecretSource {
        SecretSource(variable: Self.environmentSecret(in: ProcessInfo.processInfo.environment)?.variable, dataDirectory: dataDirectoryURL)
    }

    /// `--data-dir`, else `LATCHKEY_DATA_DIR`, else `./.latchkey`, as an absolute URL.
    var dataDirectoryURL: URL {
        Self.url(ServerSetting.dataDirectory.value(given: dataDirectory, environment: ProcessInfo.processInfo.environment))
    }

    static func url(_ path: String?) -> URL {
        URL(fileURLWithPath: path ?? ServerSetting.defaultDataDirectory, isDirectory: true).standardizedFileURL
    }
}

// MARK: - Settings as ArgumentParser options

extension NameSpecification {
    /// The setting's long option.
    static func setting(_ setting: ServerSetting) -> NameSpecification { .customLong(setting.id) }
}

extension ArgumentHelp {
    /// The setting's help text, with its default and GoTrue's names for it.
    static func setting(_ setting: ServerSetting) -> ArgumentHelp {
        ArgumentHelp(SettingArguments.helpText(setting), valueName: setting.valueName)
    }
}

extension ServerSetting {
    /// The command line's text for a setting `keys` or `backup` shares with `serve`, else the
    /// environment's (a plain text setting: no conversion fails).
    func value(given: String?, environment: [String: String]) -> String? {
        if let given { return given }
        guard case .text(let text)? = (try? environmentValue(environment))?.1 else { return nil }
        return text
    }
}
