import Foundation

/// A passkey registered to the signed-in account, as the server lists it: a name to tell it apart
/// and when it was made and last used. The key itself never leaves the authenticator.
public struct Passkey: Sendable, Hashable, Codable, Identifiable {
    /// The server's identifier for the passkey (a UUID string): what ``AuthPasskeys/rename(_:to:)``
    /// and ``AuthPasskeys/delete(_:)`` take.
    public var id: String
    /// The name the person gave it, or the server's default ("Passkey").
    public var friendlyName: String
    /// When it was registered.
    public var createdAt: Date?
    /// When it last signed in; `nil` when it never did.
    public var lastUsedAt: Date?

    public init(id: String, friendlyName: String, createdAt: Date? = nil, lastUsedAt: Date? = nil) {
        self.id = id
        self.friendlyName = friendlyName
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
    }
}
