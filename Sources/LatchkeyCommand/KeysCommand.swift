import ArgumentParser
import Foundation
import LatchkeyServer

/// `latchkey keys`: prints the anon key and a service_role key signed with the server secret;
/// `latchkey keys generate` prints a new signing key (``KeysGenerateCommand``).
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Print the anon key and the service_role key (for /admin) of a server's data directory.",
        discussion: """
            Uses the secret `serve` uses: LATCHKEY_JWT_SECRET (or GOTRUE_JWT_SECRET) when set, otherwise the \
            secret file in --data-dir (LATCHKEY_DATA_DIR). Never creates a secret: with neither, it fails. \
            Says on standard error which secret it used. The API keys are signed with that secret (HS256) \
            whatever --jwt-keys says, and keep working when the signing key changes.

            `latchkey keys generate --alg ES256` prints a new private JWK for --jwt-keys.
            """,
        subcommands: [KeysGenerateCommand.self])

    @OptionGroup var data: DataOptions
    @Option(name: .customLong("external-url"), help: "The server's public URL, used as the key issuer.")
    var externalURL: String?

    func run() async throws {
        umask(0o077)
        let source = data.secretSource
        if case .missing = source {
            // Not a usage error: the command is right, the secret is missing.
            Terminal.writeError(
                "Error: no JWT secret: set LATCHKEY_JWT_SECRET (or GOTRUE_JWT_SECRET) as the server has it, or point --data-dir at the server's data directory (\(ServerKeys.secretFile(in: data.dataDirectoryURL).path) does not exist); keys signed with any other secret would not open the server\n"
            )
            throw ExitCode.failure
        }
        do {
            let keys = try await ServerKeys.make(
                dataDirectory: data.dataDirectoryURL, configuredSecret: data.environmentSecret,
                externalURL: ServerSetting.externalURL.value(given: externalURL, environment: ProcessInfo.processInfo.environment),
                createSecret: false)
            Terminal.writeError("keys signed with the secret from \(source)\n")
            print("anon key:         \(keys.anon)")
            print("service_role key: \(keys.serviceRole)")
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
    }
}
