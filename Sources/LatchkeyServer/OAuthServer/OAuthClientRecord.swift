import Foundation

/// An app registered with the OAuth server: by an administrator (`/admin/oauth/clients`) or by
/// itself (`POST /oauth/clients/register`), as GoTrue's `oauth_clients` row.
package struct OAuthClientRecord: Sendable, Hashable, Codable {
    /// Whether the client keeps a secret (a server-side app) or cannot (a browser or native app,
    /// which proves itself with PKCE alone).
    enum ClientType: String, Sendable, Hashable, Codable, CaseIterable {
        case `public`
        case confidential
    }

    /// How the client authenticates at `POST /oauth/token`.
    enum AuthenticationMethod: String, Sendable, Hashable, Codable, CaseIterable {
        case none
        case clientSecretBasic = "client_secret_basic"
        case clientSecretPost = "client_secret_post"

        /// The client type the method implies: `none` is public, a secret is confidential.
        var clientType: ClientType { self == .none ? .public : .confidential }
    }

    /// Who registered the client.
    enum Registration: String, Sendable, Hashable, Codable {
        case manual
        case dynamic
    }

    /// The grant types a client may use at `POST /oauth/token`.
    static let grantTypes = ["authorization_code", "refresh_token"]

    /// The client ID, as the wire names it: the row's UUID.
    var id: UUID
    var clientType: ClientType
    var authenticationMethod: AuthenticationMethod
    /// The hash of the client secret (``OAuthClientSecret``); `nil` for a public client.
    var secretHash: String?
    /// The exact URIs the browser may be sent back to, in the order given.
    var redirectURIs: [String]
    var grantTypes: [String]
    var name: String?
    var clientURI: String?
    var logoURI: String?
    var registration: Registration
    var createdAt: Date
    var updatedAt: Date
    /// When the client was deleted: it no longer signs anyone in, and its ID is not found.
    var deletedAt: Date?

    /// The stored form: the record as JSON (one column, the same on both stores).
    func document() throws -> String {
        String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
    }

    init(document: String) throws {
        self = try JSONDecoder().decode(Self.self, from: Data(document.utf8))
    }

    init(
        id: UUID = UUID(), clientType: ClientType, authenticationMethod: AuthenticationMethod, secretHash: String?, redirectURIs: [String],
        grantTypes: [String], name: String?, clientURI: String?, logoURI: String?, registration: Registration, createdAt: Date
    ) {
        self.id = id
        self.clientType = clientType
        self.authenticationMethod = authenticationMethod
        self.secretHash = secretHash
        self.redirectURIs = redirectURIs
        self.grantTypes = grantTypes
        self.name = name
        self.clientURI = clientURI
        self.logoURI = logoURI
        self.registration = registration
        self.createdAt = createdAt
        self.updatedAt = createdAt
    }
}
