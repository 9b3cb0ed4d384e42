import Foundation
import LatchkeyWire

/// One way into a user's account: an identity at an external provider (GoTrue's
/// `auth.identities`). One user per (provider, subject).
package struct IdentityRecord: Sendable, Hashable {
    var id: UUID
    /// The provider's identifier of the person (`sub`; GoTrue's `provider_id`).
    var subject: String
    var userID: UUID
    /// `apple`, `google`, `keycloak`, `github`, `custom:<name>` or an allowed issuer.
    var provider: String
    /// What the provider said at the last sign-in (see ``ProviderUserData/identityData``).
    var identityData: [String: JSONValue]
    /// The provider's address, lowercased, when it gave one.
    var email: String?
    var lastSignInAt: Date?
    var createdAt: Date
    var updatedAt: Date

    init(
        id: UUID = UUID(), subject: String, userID: UUID, provider: String, identityData: [String: JSONValue], email: String?,
        lastSignInAt: Date?, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.subject = subject
        self.userID = userID
        self.provider = provider
        self.identityData = identityData
        self.email = email
        self.lastSignInAt = lastSignInAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether the provider said it verified the identity's address.
    var isEmailVerified: Bool { identityData["email_verified"]?.boolValue == true }
}
