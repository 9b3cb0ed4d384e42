import Foundation

/// A challenge the server issued for one WebAuthn ceremony: spent by the first verification
/// that names it, right or wrong, and refused after ``expiresAt``.
package struct WebAuthnChallengeRecord: Sendable, Hashable {
    /// What the challenge is for.
    package enum Kind: String, Sendable, Hashable {
        /// Adding a passkey to the signed-in ``WebAuthnChallengeRecord/userID``.
        case registration
        /// Signing in with a discoverable passkey: no user yet.
        case authentication
    }

    var id: UUID
    var kind: Kind
    /// The account a registration is for; `nil` for a sign-in.
    var userID: UUID?
    /// The random bytes the authenticator signs over (in clientDataJSON).
    var challenge: [UInt8]
    var createdAt: Date
    var expiresAt: Date

    init(id: UUID = UUID(), kind: Kind, userID: UUID?, challenge: [UInt8], createdAt: Date, expiresAt: Date) {
        self.id = id
        self.kind = kind
        self.userID = userID
        self.challenge = challenge
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}
