import ArgumentParser

/// `latchkey oauth …`: the server's OAuth 2.1 authorization server, for its operator.
struct OAuthCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "oauth",
        abstract: "Manage the server's OAuth 2.1 server: the apps that sign their users in with this server's accounts.",
        subcommands: [OAuthClientsCommand.self])
}

/// `latchkey oauth clients add|list|remove|regenerate-secret`: the OAuth server's client registry, straight on the
/// server's database, as the admin API's `/admin/oauth/clients` changes it.
struct OAuthClientsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clients",
        abstract: "Register, list and remove the OAuth server's clients (the apps allowed to ask users to sign in).",
        discussion: """
            Works directly on the server's database, named as for serve (--data-dir, --database or the \
            environment: LATCHKEY_DATABASE_URL, DATABASE_URL, …), with the same checks as the admin API \
            (POST/GET/DELETE /admin/oauth/clients, POST …/regenerate_secret), also while the server runs. The clients sign users in \
            once the server runs with --oauth-server (GOTRUE_OAUTH_SERVER_ENABLED=true).

            Exit codes: 0 ok; 2 usage, rejected input or unknown client id (nothing changed); 4 the \
            database failed.
            """,
        subcommands: [
            OAuthClientsAddCommand.self, OAuthClientsListCommand.self, OAuthClientsRemoveCommand.self, OAuthClientsRegenerateSecretCommand.self,
        ])
}
