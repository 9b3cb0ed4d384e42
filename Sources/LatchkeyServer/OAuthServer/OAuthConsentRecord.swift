import Foundation

/// A user's consent to one OAuth client (GoTrue's `oauth_consents` row): the scopes granted,
/// remembered so that the next sign-in asking no more is approved without asking again.
/// Revoking it ends the client's sessions of the user; approving again replaces the scopes.
package struct OAuthConsentRecord: Sendable, Hashable {
    var userID: UUID
    var clientID: UUID
    var scopes: [String]
    var grantedAt: Date
    var revokedAt: Date?

    init(userID: UUID, clientID: UUID, scopes: [String], grantedAt: Date, revokedAt: Date? = nil) {
        self.userID = userID
        self.clientID = clientID
        self.scopes = scopes
        self.grantedAt = grantedAt
        self.revokedAt = revokedAt
    }

    /// Whether the consent stands and covers every scope in `requested`.
    func covers(_ requested: [String]) -> Bool {
        revokedAt == nil && Set(requested).isSubset(of: Set(scopes))
    }
}
