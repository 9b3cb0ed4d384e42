import Foundation
import LatchkeyWire

/// One way into a user's account: an identity at an external provider (GoTrue's
/// `auth.identities`). One user per (provider, subject).
package struct IdentityRecord: Sendable, Hashable {
    package var id: UUID
    /// The provider's identifier of the person (`sub`; GoTrue's `provider_id`).
    package var subject: String
    package var userID: UUID
    /// `apple`, `google`, `keycloak`, `github`, `custom:<name>` or an allowed issuer.
    package var provider: String
    /// What the provider said at the last sign-in (see ``ProviderUserData/identityData``).
    package var identityData: [String: JSONValue]
    /// The provider's address, lowercased, when it gave one.
    package var email: String?
    package var lastSignInAt: Date?
    package var createdAt: Date
    package var updatedAt: Date

    package init(
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
    package var isEmailVerified: Bool { identityData["email_verified"]?.boolValue == true }
}
