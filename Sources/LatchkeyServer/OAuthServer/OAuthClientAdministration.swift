import Foundation

/// The OAuth server's client registry as an operator's command reaches it (`latchkey oauth
/// clients`): the same use case (``OAuthClients``), checks and stored records as
/// `/admin/oauth/clients`, straight on the server's database.
package struct OAuthClientAdministration: Sendable {
    let clients: OAuthClients

    package init(store: any AuthStore, clock: any ServerClock = SystemServerClock()) {
        clients = OAuthClients(store: store, clock: clock)
    }

    /// A client an administrator registers, as `POST /admin/oauth/clients` takes it.
    package struct Registration: Sendable, Hashable {
        package var name: String?
        /// The exact URIs the browser may be sent back to (1 to 10).
        package var redirectURIs: [String]
        /// A public client (a browser or native app: no secret, PKCE alone, authentication
        /// method `none`); otherwise confidential with `client_secret_basic`.
        package var isPublic: Bool
        package var clientURI: String?
        package var logoURI: String?

        package init(name: String?, redirectURIs: [String], isPublic: Bool = false, clientURI: String? = nil, logoURI: String? = nil) {
            self.name = name
            self.redirectURIs = redirectURIs
            self.isPublic = isPublic
            self.clientURI = clientURI
            self.logoURI = logoURI
        }

        var body: OAuthClientBody {
            OAuthClientBody(
                redirect_uris: redirectURIs, client_type: isPublic ? "public" : "confidential",
                token_endpoint_auth_method: isPublic ? "none" : "client_secret_basic", grant_types: nil, client_name: name,
                client_uri: clientURI, logo_uri: logoURI)
        }
    }

    /// A registered client as the command shows it. ``secret`` is there only in the answer to a
    /// registration; a client's secret is never read back.
    package struct Client: Sendable, Hashable {
        package var id: UUID
        package var name: String?
        /// `public` or `confidential`.
        package var clientType: String
        /// `none`, `client_secret_basic` or `client_secret_post`.
        package var authenticationMethod: String
        package var redirectURIs: [String]
        package var clientURI: String?
        package var logoURI: String?
        /// The client secret, answered once, at registration of a confidential client.
        package var secret: String?
        /// The client as the admin API answers it (JSON, keys sorted, with ``secret`` when
        /// there is one).
        package var json: Data

        init(_ response: OAuthClientResponse) throws {
            id = UUID(uuidString: response.client_id) ?? UUID()
            name = response.client_name
            clientType = response.client_type
            authenticationMethod = response.token_endpoint_auth_method
            redirectURIs = response.redirect_uris
            clientURI = response.client_uri
            logoURI = response.logo_uri
            secret = response.client_secret
            json = try OAuthClientAdministration.encoder.encode(response)
        }
    }

    /// The registry refused the request, in the admin API's words: `validation_failed` (a
    /// refused value, nothing stored) or `oauth_client_not_found`.
    package struct Refusal: Error, Sendable, Hashable, CustomStringConvertible {
        package var code: String
        package var message: String
        package var description: String { message }

        init(_ error: AuthError) {
            code = error.code
            message = error.message
        }
    }

    /// Checks `registration` as ``register(_:)`` will, without a database: an operator's
    /// mistake is refused before anything is opened or created.
    /// - Throws: ``Refusal`` (`validation_failed`).
    package static func check(_ registration: Registration) throws(Refusal) {
        do {
            _ = try OAuthClients.validateRegistration(registration.body)
        } catch {
            throw Refusal(error)
        }
    }

    /// Registers `registration` as `POST /admin/oauth/clients` does (`registration_type`
    /// `manual`); the answer holds a confidential client's secret, the only time it is shown.
    /// - Throws: ``Refusal`` (`validation_failed`, nothing stored), or the store's failure.
    package func register(_ registration: Registration) async throws -> Client {
        try await refusing { try Client(try await clients.register(registration.body, registration: .manual)) }
    }

    /// Every client that is not deleted, newest first, without secrets.
    package func list() async throws -> [Client] {
        try await refusing { try await clients.list().clients.map(Client.init) }
    }

    /// Every client as `GET /admin/oauth/clients` answers: `{"clients":[…]}` (keys sorted).
    package func listDocument() async throws -> Data {
        try await refusing { try Self.encoder.encode(try await clients.list()) }
    }

    /// Deletes the client with `id` as `DELETE /admin/oauth/clients/{id}` does: it is no longer
    /// listed or found, and can no longer get tokens.
    /// - Throws: ``Refusal`` (`oauth_client_not_found`), or the store's failure.
    package func delete(_ id: UUID) async throws {
        try await refusing { try await clients.delete(id) }
    }

    /// Gives the confidential client with `id` a new secret, as
    /// `POST /admin/oauth/clients/{id}/regenerate_secret` does: the old one stops working at
    /// once, and the answer holds the new one, the only time it is shown.
    /// - Throws: ``Refusal`` (`validation_failed` for a public client, `oauth_client_not_found`),
    ///   or the store's failure.
    package func regenerateSecret(_ id: UUID) async throws -> Client {
        try await refusing { try Client(try await clients.regenerateSecret(id)) }
    }

    private func refusing<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AuthError {
            throw Refusal(error)
        }
    }

    static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }()
}
