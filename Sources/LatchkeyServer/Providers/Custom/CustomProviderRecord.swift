import Foundation
import LatchkeyWire

/// A provider an administrator added (`/admin/custom-providers`), named `custom:<name>`: GoTrue's
/// custom OAuth provider, of type `oidc` (an OpenID issuer) or `oauth2` (endpoints given by hand,
/// the person read from a user-info endpoint).
package struct CustomProviderRecord: Sendable, Hashable, Codable {
    var id: UUID
    /// `custom:<name>`.
    var identifier: String
    /// A display name.
    var name: String
    var clientID: String
    /// The client secret, sealed (``SecretSealer``); never answered.
    var sealedClientSecret: String
    /// Further audiences an ID token may name (native apps' client IDs).
    var acceptableClientIDs: [String]
    /// Scopes asked for besides `openid`.
    var scopes: [String]
    var pkceEnabled: Bool
    var skipNonceCheck: Bool
    var emailOptional: Bool
    var enabled: Bool
    /// The issuer: its discovery document is at `<issuer>/.well-known/openid-configuration`.
    var issuer: String
    /// Claims renamed before they become identity data: identity key → claim name.
    var attributeMapping: [String: String]
    /// `oauth2` for a provider with hand-given endpoints; `nil` (or `oidc`) for an OpenID issuer.
    var providerType: String?
    var authorizationURL: String?
    var tokenURL: String?
    var userinfoURL: String?
    var createdAt: Date
    var updatedAt: Date

    init(
        id: UUID = UUID(), identifier: String, name: String, clientID: String, sealedClientSecret: String, acceptableClientIDs: [String],
        scopes: [String], pkceEnabled: Bool, skipNonceCheck: Bool, emailOptional: Bool, enabled: Bool, issuer: String,
        attributeMapping: [String: String], createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.identifier = identifier
        self.name = name
        self.clientID = clientID
        self.sealedClientSecret = sealedClientSecret
        self.acceptableClientIDs = acceptableClientIDs
        self.scopes = scopes
        self.pkceEnabled = pkceEnabled
        self.skipNonceCheck = skipNonceCheck
        self.emailOptional = emailOptional
        self.enabled = enabled
        self.issuer = issuer
        self.attributeMapping = attributeMapping
        self.providerType = nil
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether the provider is an OAuth 2 one with hand-given endpoints.
    var isOAuth2: Bool { providerType == "oauth2" }

    /// The stored form: the record as JSON (one column, the same on both stores).
    func document() throws -> String {
        String(decoding: try JSONEncoder().encode(self), as: UTF8.self)
    }

    init(document: String) throws {
        let decoder = JSONDecoder()
        self = try decoder.decode(Self.self, from: Data(document.utf8))
    }
}
