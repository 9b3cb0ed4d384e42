import ArgumentParser
import Foundation
import LatchkeyServer

/// `latchkey oauth clients remove CLIENT_ID`: deletes a client as the admin API's
/// `DELETE /admin/oauth/clients/{id}` does.
struct OAuthClientsRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Remove an OAuth client: it can no longer sign anyone in or get tokens.",
        discussion: """
            The client is deleted as the admin API deletes it: no longer listed or found, its id and \
            secret no longer work. An unknown id (or one removed already) exits with 2 and changes nothing.
            """)

    @Argument(help: ArgumentHelp("The client id (a UUID), as 'latchkey oauth clients list' shows it.", valueName: "client-id"))
    var clientID: String
    @OptionGroup var options: OAuthClientsOptions

    func run() async throws {
        try await OAuthClientsFailure.reporting {
            guard let id = UUID(uuidString: clientID.trimmingCharacters(in: .whitespaces)) else {
                throw OAuthClientsFailure.usage("'\(clientID.prefix(80))' is not a client id (a UUID, as 'latchkey oauth clients list' shows)")
            }
            do {
                try await options.withRegistry(creating: false) { try await $0.delete(id) }
            } catch let refusal as OAuthClientAdministration.Refusal where refusal.code == "oauth_client_not_found" {
                throw OAuthClientsFailure.usage("no OAuth client with id \(id.uuidString.lowercased()) (removed already, or never registered)")
            }
            Terminal.standard().output("removed OAuth client \(id.uuidString.lowercased())")
        }
    }
}
