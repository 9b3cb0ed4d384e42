import ArgumentParser
import Foundation
import LatchkeyServer

/// `latchkey oauth clients add`: registers a client as an administrator does
/// (`POST /admin/oauth/clients`), and shows its secret this once.
struct OAuthClientsAddCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Register an OAuth client; prints its client id and, once, its secret.",
        discussion: """
            A confidential client (a server-side app; token endpoint authentication client_secret_basic) \
            gets a secret, printed once and stored only as a hash: keep it now, it is not shown again. With \
            --public the client (a browser, mobile or desktop app) gets none and proves itself with PKCE \
            alone (token_endpoint_auth_method none).

            Each --redirect-uri is matched exactly when the app sends the browser back: an absolute URI \
            with a host, no fragment, https (plain http only for localhost, 127.0.0.1 and ::1) or an app's \
            own scheme (myapp://callback); never javascript:, data:, file:, vbscript:, about: or blob:. \
            At most 10. A refused value creates nothing.

            --json prints the client as the admin API answers it (client_id, client_secret, client_type, \
            redirect_uris, …).
            """)

    @Option(name: .customLong("name"), help: ArgumentHelp("The app's name, shown to users when they consent.", valueName: "name"))
    var name: String
    @Option(
        name: .customLong("redirect-uri"),
        help: ArgumentHelp("A URI the browser may be sent back to with the code (repeat for more, at most 10).", valueName: "uri"))
    var redirectURIs: [String] = []
    @Flag(name: .customLong("public"), help: "A public client (no secret; PKCE alone), for browser, mobile and desktop apps.")
    var isPublic = false
    @Option(name: .customLong("client-uri"), help: ArgumentHelp("The app's home page.", valueName: "url"))
    var clientURI: String?
    @Option(name: .customLong("logo-uri"), help: ArgumentHelp("The app's logo.", valueName: "url"))
    var logoURI: String?
    @Flag(name: .customLong("json"), help: "Print the client as JSON, as the admin API answers it.")
    var json = false
    @OptionGroup var options: OAuthClientsOptions

    func run() async throws {
        umask(0o077)
        try await OAuthClientsFailure.reporting {
            guard !name.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw OAuthClientsFailure.usage("--name cannot be empty") }
            guard !redirectURIs.isEmpty else { throw OAuthClientsFailure.usage("give at least one --redirect-uri") }
            let registration = OAuthClientAdministration.Registration(
                name: name, redirectURIs: redirectURIs, isPublic: isPublic, clientURI: clientURI, logoURI: logoURI)
            // Refused before the database is opened: a mistake creates nothing, not even a file.
            try OAuthClientAdministration.check(registration)
            let client = try await options.withRegistry(creating: true) { try await $0.register(registration) }
            let terminal = Terminal.standard()
            if json {
                terminal.output(String(decoding: client.json, as: UTF8.self))
                return
            }
            terminal.output("client_id: \(client.id.uuidString.lowercased())")
            if let secret = client.secret {
                terminal.output("client_secret: \(secret)")
                terminal.message("Keep the client secret now: it is stored only as a hash and will not be shown again.")
            } else {
                terminal.message("A public client: no secret; it proves itself with PKCE.")
            }
        }
    }
}
