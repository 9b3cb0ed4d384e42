import ArgumentParser
import Foundation
import LatchkeyServer

/// The `latchkey` command: the auth server (`serve`, `keys`) and a terminal client that stays
/// signed in across shells and reboots (`signup`, `login`, `status`, `token`, `whoami`, `logout`).
@main
struct RootCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "Latchkey: persistent login, done properly. Runs the auth server, and signs you in from a terminal.",
        discussion: """
            State lives in $LATCHKEY_HOME (default $XDG_CONFIG_HOME/latchkey or ~/.config/latchkey): \
            directories 0700, files 0600, tokens only in the desktop keyring or an encrypted file.

            \(ExitStatus.summary)
            """,
        version: LatchkeyVersion.current,
        subcommands: [
            ServeCommand.self, KeysCommand.self, BackupCommand.self,
            SignupCommand.self, LoginCommand.self, StatusCommand.self, TokenCommand.self, WhoamiCommand.self, LogoutCommand.self,
        ])

    /// Parses and runs like ArgumentParser's default, except that a usage error exits with 2,
    /// the documented code, rather than 64.
    static func main() async {
        var fromEnvironment: [String] = []
        do {
            // `serve`, `keys` and `backup` read options the command line leaves out from the environment.
            let expansion = try EnvironmentArguments.expand(Array(CommandLine.arguments.dropFirst()), environment: ProcessInfo.processInfo.environment)
            fromEnvironment = expansion.variables
            var command = try parseAsRoot(expansion.arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                let origin = fromEnvironment.isEmpty ? "" : "(options from the environment: \(fromEnvironment.joined(separator: ", ")))\n"
                Terminal.writeError(fullMessage(for: error) + "\n" + origin)
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}
