import ArgumentParser
import Foundation
import LatchkeyServer

/// `latchkey oauth clients list`: the registered clients, newest first, never a secret.
struct OAuthClientsListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list",
        abstract: "List the OAuth clients: id, name, type and redirect URIs (never a secret).",
        discussion: """
            Newest first; removed clients are not listed. --json prints the admin API's answer \
            ({"clients":[…]}).
            """)

    @Flag(name: .customLong("json"), help: "Print the clients as JSON, as the admin API answers GET /admin/oauth/clients.")
    var json = false
    @OptionGroup var options: OAuthClientsOptions

    func run() async throws {
        try await OAuthClientsFailure.reporting {
            let terminal = Terminal.standard()
            if json {
                let document = try await options.withRegistry(creating: false) { try await $0.listDocument() }
                terminal.output(String(decoding: document, as: UTF8.self))
                return
            }
            let clients = try await options.withRegistry(creating: false) { try await $0.list() }
            guard !clients.isEmpty else {
                terminal.message("No OAuth clients. Register one with 'latchkey oauth clients add'.")
                return
            }
            // Names and URIs may come from a client that registered itself: shown without
            // control characters, so they cannot move the cursor or forge lines.
            let rows = clients.map { client in
                [
                    client.id.uuidString.lowercased(), TerminalText.printable(client.name ?? "-"), client.clientType,
                    client.redirectURIs.map(TerminalText.printable).joined(separator: " "),
                ]
            }
            for line in TextTable.render(header: ["CLIENT ID", "NAME", "TYPE", "REDIRECT URIS"], rows: rows) { terminal.output(line) }
        }
    }
}
