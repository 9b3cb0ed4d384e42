import ArgumentParser
import Foundation
import LatchkeyServer

/// `latchkey oauth clients regenerate-secret CLIENT_ID`: a confidential client's new secret, as
/// the admin API's `POST /admin/oauth/clients/{id}/regenerate_secret` makes it.
struct OAuthClientsRegenerateSecretCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "regenerate-secret",
        abstract: "Give a confidential OAuth client a new secret; the old one stops working at once.",
        discussion: """
            The new secret is printed once and stored only as a hash. The app's tokens already issued \
            keep working until they expire or are revoked. A public client (it has no secret) or an \
            unknown id exits with 2 and changes nothing.
            """)

    @Argument(help: ArgumentHelp("The client id (a UUID), as 'latchkey oauth clients list' shows it.", valueName: "client-id"))
    var clientID: String
    @Flag(help: "Print the client as the admin API answers it (JSON, with the new secret).")
    var json = false
    @OptionGroup var options: OAuthClientsOptions

    func run() async throws {
        umask(0o077)
        try await OAuthClientsFailure.reporting {
            guard let id = UUID(uuidString: clientID.trimmingCharacters(in: .whitespaces)) else {
                throw OAuthClientsFailure.usage("'\(clientID.prefix(80))' is not a client id (a UUID, as 'latchkey oauth clients list' shows)")
            }
            let client: OAuthClientAdministration.Client
            do {
                client = try await options.withRegistry(creating: false) { try await $0.regenerateSecret(id) }
            } catch let refusal as OAuthClientAdministration.Refusal where refusal.code == "oauth_client_not_found" {
                throw OAuthClientsFailure.usage("no OAuth client with id \(id.uuidString.lowercased()) (removed, or never registered)")
            }
            let terminal = Terminal.standard()
            if json {
                terminal.output(String(decoding: client.json, as: UTF8.self))
                return
            }
            terminal.output("client_id: \(client.id.uuidString.lowercased())")
            terminal.output("client_secret: \(client.secret ?? "")")
            terminal.message("Keep the client secret now: it is stored only as a hash and will not be shown again. The old one no longer works.")
        }
    }
}
