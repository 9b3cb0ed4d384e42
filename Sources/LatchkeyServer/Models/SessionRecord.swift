import Foundation

/// A signed-in session: one device or app install, holding one refresh-token family.
public struct SessionRecord: Sendable, Hashable {
    public var id: UUID
    public var userID: UUID
    public var createdAt: Date
    public var updatedAt: Date
    /// When a refresh last succeeded (or the session was created).
    public var refreshedAt: Date
    /// The hard end of the session, when a session timebox is configured.
    public var notAfter: Date?
    /// How the session was authenticated ("password", "otp", "recovery").
    public var authMethod: String

    public init(id: UUID = UUID(), userID: UUID, createdAt: Date, updatedAt: Date, refreshedAt: Date, notAfter: Date?, authMethod: String) {
        self.id = id
        self.userID = userID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.refreshedAt = refreshedAt
        self.notAfter = notAfter
        self.authMethod = authMethod
    }
}

extension SessionRecord {
    /// Whether the session went longer than `timeout` without a refresh (GoTrue's
    /// `Session.CheckValidity`: `now` after `refreshed_at + timeout`).
    func isInactive(at now: Date, timeout: TimeInterval?) -> Bool {
        guard let timeout else { return false }
        return now > refreshedAt.addingTimeInterval(timeout)
    }
}

/// One refresh token of a session's family. Only the SHA-256 of the token is stored.
public struct RefreshTokenRecord: Sendable, Hashable {
    public var id: Int64?
    public var tokenHash: String
    public var sessionID: UUID
    public var userID: UUID
    /// The hash of the token this one replaced; `nil` for the first token of a session.
    public var parentHash: String?
    /// When the token was spent (rotated) or revoked; `nil` while it is the active token.
    public var revokedAt: Date?
    public var createdAt: Date

    public init(id: Int64? = nil, tokenHash: String, sessionID: UUID, userID: UUID, parentHash: String?, revokedAt: Date?, createdAt: Date) {
        self.id = id
        self.tokenHash = tokenHash
        self.sessionID = sessionID
        self.userID = userID
        self.parentHash = parentHash
        self.revokedAt = revokedAt
        self.createdAt = createdAt
    }

    /// A new, unspent token of `session`, replacing the token hashed `parentHash` (`nil` for the
    /// first token of the session).
    init(hash: String, of session: SessionRecord, parentHash: String?, createdAt: Date) {
        self.init(tokenHash: hash, sessionID: session.id, userID: session.userID, parentHash: parentHash, revokedAt: nil, createdAt: createdAt)
    }
}
