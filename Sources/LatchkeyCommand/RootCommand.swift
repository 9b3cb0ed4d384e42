import ArgumentParser
import Foundation
import LatchkeyServer

/// The `latchkey` command: the auth server (`serve`, `keys`) and a terminal client that stays
/// signed in across shells and reboots (`signup`, `login`, `status`, `token`, `whoami`, `logout`,
/// `mfa`).
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
            ServeCommand.self, KeysCommand.self, BackupCommand.self, ImportCommand.self, OAuthCommand.self,
            SignupCommand.self, LoginCommand.self, StatusCommand.self, TokenCommand.self, WhoamiCommand.self, LogoutCommand.self,
            ResetPasswordCommand.self, MFACommand.self, AccountCommand.self,
        ])

    /// Parses and runs like ArgumentParser's default, except that a usage error exits with 2,
    /// the documented code, rather than 64, and a mistyped command name gets a suggestion.
    static func main() async {
        let arguments = Array(CommandLine.arguments.dropFirst())
        var command: any ParsableCommand
        do {
            // `serve`, `keys` and `backup` read what the command line leaves out from the
            // environment themselves (see `ServerSetting`).
            command = try parseAsRoot(arguments)
        } catch {
            if let unknown = CommandSuggestion.unknownCommand(in: arguments, known: commandNames) {
                for line in CommandSuggestion.lines(for: unknown, known: commandNames) { Terminal.writeError(line + "\n") }
                Foundation.exit(ExitStatus.usage.rawValue)
            }
            exitForUsage(error)
        }
        do {
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            exitForUsage(error)
        }
    }

    /// Exits as ArgumentParser would for `error`, but with 2 for a usage error.
    private static func exitForUsage(_ error: any Error) -> Never {
        if exitCode(for: error) == .validationFailure {
            Terminal.writeError(fullMessage(for: error) + "\n")
            Foundation.exit(ExitStatus.usage.rawValue)
        }
        exit(withError: error)
    }

    /// The subcommands' names, and `help`.
    static var commandNames: [String] {
        configuration.subcommands.compactMap { $0.configuration.commandName } + ["help"]
    }
}

/// "Did you mean 'login'?" for a mistyped command name.
enum CommandSuggestion {
    /// The first argument when it is meant as a command name but names none.
    static func unknownCommand(in arguments: [String], known: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-"), !known.contains(first) else { return nil }
        return first
    }

    /// The message for `typed`: the nearest command when one is close enough, else the list.
    static func lines(for typed: String, known: [String]) -> [String] {
        let commands = known.filter { $0 != "help" }
        if let nearest = nearest(to: typed, among: known) {
            return [
                "latchkey: '\(typed)' is not a latchkey command. Did you mean '\(nearest)'?",
                "  Run 'latchkey --help' to see every command.",
            ]
        }
        return [
            "latchkey: '\(typed)' is not a latchkey command.",
            "  The commands are: \(commands.joined(separator: ", ")). Run 'latchkey --help' for more.",
        ]
    }

    /// The name nearest to `typed` in edit distance (a swap of two neighbours counts once),
    /// when it is within a third of the name's length (at least 1, at most 3); or a name that
    /// `typed` is the start of.
    static func nearest(to typed: String, among names: [String]) -> String? {
        let lowered = typed.lowercased()
        if lowered.count >= 2, let prefixed = names.filter({ $0.hasPrefix(lowered) }).first, names.filter({ $0.hasPrefix(lowered) }).count == 1 {
            return prefixed
        }
        let scored = names.map { ($0, distance(lowered, $0)) }.sorted { $0.1 < $1.1 }
        guard let best = scored.first else { return nil }
        let limit = min(3, max(1, best.0.count / 3))
        guard best.1 <= limit else { return nil }
        // Two names equally near: no guess.
        if scored.count > 1, scored[1].1 == best.1 { return nil }
        return best.0
    }

    /// The optimal-string-alignment distance: insertions, deletions, substitutions and swaps
    /// of adjacent characters each cost one.
    static func distance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var d = Array(repeating: Array(repeating: 0, count: b.count + 1), count: a.count + 1)
        for i in 0...a.count { d[i][0] = i }
        for j in 0...b.count { d[0][j] = j }
        for i in 1...a.count {
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
                if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                    d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1)
                }
            }
        }
        return d[a.count][b.count]
    }
}
