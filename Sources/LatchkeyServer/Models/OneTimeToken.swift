import Foundation

/// A single-use token sent by email: sign-up confirmation, password recovery or email change.
///
/// Only the SHA-256 of the token is stored; a user has at most one live token per kind.
public struct OneTimeToken: Sendable, Hashable {
    public enum Kind: String, Sendable, CaseIterable {
        case confirmation = "confirmation_token"
        case recovery = "recovery_token"
        case emailChange = "email_change_token_new"
    }

    public var userID: UUID
    public var kind: Kind
    public var tokenHash: String
    /// The address the token was sent to.
    public var relatesTo: String
    public var createdAt: Date

    public init(userID: UUID, kind: Kind, tokenHash: String, relatesTo: String, createdAt: Date) {
        self.userID = userID
        self.kind = kind
        self.tokenHash = tokenHash
        self.relatesTo = relatesTo
        self.createdAt = createdAt
    }
}
