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
            ServeCommand.self, KeysCommand.self,
            SignupCommand.self, LoginCommand.self, StatusCommand.self, TokenCommand.self, WhoamiCommand.self, LogoutCommand.self,
        ])

    /// Parses and runs like ArgumentParser's default, except that a usage error exits with 2,
    /// the documented code, rather than 64.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            if exitCode(for: error) == .validationFailure {
                Terminal.writeError(fullMessage(for: error) + "\n")
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exit(withError: error)
        }
    }
}
