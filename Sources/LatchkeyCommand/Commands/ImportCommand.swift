import ArgumentParser

/// `latchkey import …`: brings users from another auth system into a server's database.
struct ImportCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Import users from another auth system into a server's database, keeping their ids and passwords.",
        subcommands: [ImportFirebaseCommand.self, ImportSupabaseCommand.self])
}
