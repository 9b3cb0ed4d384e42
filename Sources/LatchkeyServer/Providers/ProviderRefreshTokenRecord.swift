import Foundation

/// A refresh token an identity provider gave for one of a user's identities, kept so the
/// server can revoke it when the account is deleted (Sign in with Apple's `/auth/revoke`).
///
/// The token is stored sealed (``SecretSealer``, bound to the identity), never answered and
/// never logged; the row goes with the user.
package struct ProviderRefreshTokenRecord: Sendable, Equatable {
    var userID: UUID
    /// The provider's name, as identities store it (`apple`).
    var provider: String
    /// The identity's subject at the provider.
    var providerID: String
    /// The OAuth client the token was issued to (a services ID, or an app's bundle ID): the
    /// revocation names the same client.
    var clientID: String
    /// The token, sealed.
    var sealedToken: String
    var createdAt: Date

    init(userID: UUID, provider: String, providerID: String, clientID: String, sealedToken: String, createdAt: Date) {
        self.userID = userID
        self.provider = provider
        self.providerID = providerID
        self.clientID = clientID
        self.sealedToken = sealedToken
        self.createdAt = createdAt
    }
}

extension ProviderRefreshTokenRecord: CustomStringConvertible {
    package var description: String { "ProviderRefreshTokenRecord(\(provider), user: \(userID), client: \(clientID), token: <redacted>)" }
}
