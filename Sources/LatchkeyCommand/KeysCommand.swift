import ArgumentParser
import Foundation
import LatchkeyServer

/// `latchkey keys`: prints the anon key and a service_role key signed with the server secret.
struct KeysCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "keys",
        abstract: "Print the anon key and the service_role key (for /admin) of a server's data directory.",
        discussion: "Uses LATCHKEY_JWT_SECRET when set, otherwise the secret kept in --data-dir (generated if missing).")

    @OptionGroup var data: DataOptions
    @Option(name: .customLong("external-url"), help: "The server's public URL, used as the key issuer.")
    var externalURL: String?

    func run() async throws {
        umask(0o077)
        do {
            let keys = try await ServerKeys.make(dataDirectory: data.dataDirectoryURL, configuredSecret: data.environmentSecret, externalURL: externalURL)
            print("anon key:         \(keys.anon)")
            print("service_role key: \(keys.serviceRole)")
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        }
    }
}
