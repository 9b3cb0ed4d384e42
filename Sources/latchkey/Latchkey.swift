import ArgumentParser
import LatchkeyServer

/// The `latchkey` command.
@main
struct LatchkeyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "latchkey",
        abstract: "Latchkey: persistent login, done properly. Runs the auth server and manages its keys.",
        version: LatchkeyVersion.current,
        subcommands: [ServeCommand.self, KeysCommand.self])
}
