import Foundation

/// Options the server issued for one passkey ceremony, and the id of the challenge inside them:
/// the verification names the challenge by ``id``, and it works once, until ``expiresAt``.
public struct PasskeyChallenge<Options: Sendable & Hashable>: Sendable, Hashable {
    /// The challenge's id (`challenge_id`), sent back with the authenticator's answer.
    public var id: String
    /// When the server stops accepting an answer to it.
    public var expiresAt: Date?
    /// What the authenticator needs: ``PasskeyCreationOptions`` or ``PasskeyRequestOptions``.
    public var options: Options

    public init(id: String, expiresAt: Date?, options: Options) {
        self.id = id
        self.expiresAt = expiresAt
        self.options = options
    }
}
