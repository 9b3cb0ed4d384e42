import ArgumentParser
import Foundation
import LatchkeyServer

/// Options shared by `serve`, `keys` and `backup`: where the server keeps its data and secret.
struct DataOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "Folder for the SQLite database, the generated JWT secret and the mail outbox (created 0700).")
    var dataDirectory: String = "./.latchkey"

    /// The variables a JWT secret is read from, in order (GoTrue's name second).
    static let secretVariables = ["LATCHKEY_JWT_SECRET", "GOTRUE_JWT_SECRET"]

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
    }

    var secretSource: SecretSource {
        if let (variable, _) = Self.environmentSecret(in: ProcessInfo.processInfo.environment) { return .environment(variable) }
        let file = ServerKeys.secretFile(in: dataDirectoryURL).path
        return FileManager.default.fileExists(atPath: file) ? .file(file) : .missing(file)
    }

    var dataDirectoryURL: URL { URL(fileURLWithPath: dataDirectory, isDirectory: true).standardizedFileURL }
}
