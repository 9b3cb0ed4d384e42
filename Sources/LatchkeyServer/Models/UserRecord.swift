import Foundation

/// A user account as the store keeps it.
///
/// The password hash never leaves the server: ``UserResponse`` is the wire form.
public struct UserRecord: Sendable, Hashable {
    public var id: UUID
    public var aud: String
    public var role: String
    /// The (normalised) address; empty for an anonymous user.
    public var email: String
    /// bcrypt hash; `nil` for an account created by an administrator without a password.
    public var passwordHash: String?
    public var emailConfirmedAt: Date?
    public var confirmationSentAt: Date?
    public var recoverySentAt: Date?
    /// An address waiting for confirmation before it replaces ``email``.
    public var newEmail: String?
    public var emailChangeSentAt: Date?
    public var lastSignInAt: Date?
    public var bannedUntil: Date?
    /// Signed in without an email address or password (`POST /signup` with neither); ``email``
    /// is empty until the user adds one.
    public var isAnonymous: Bool
    /// When an administrator invited the address (`POST /invite`); the user sets a password
    /// after following the invitation.
    public var invitedAt: Date?
    public var appMetadata: [String: JSONValue]
    public var userMetadata: [String: JSONValue]
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: UUID = UUID(), aud: String = "authenticated", role: String = "authenticated", email: String,
        passwordHash: String?, emailConfirmedAt: Date? = nil, confirmationSentAt: Date? = nil,
        recoverySentAt: Date? = nil, newEmail: String? = nil, emailChangeSentAt: Date? = nil,
        lastSignInAt: Date? = nil, bannedUntil: Date? = nil, isAnonymous: Bool = false, invitedAt: Date? = nil,
        appMetadata: [String: JSONValue] = ["provider": .string("email"), "providers": .array([.string("email")])],
        userMetadata: [String: JSONValue] = [:], createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.aud = aud
        self.role = role
        self.email = email
        self.passwordHash = passwordHash
        self.emailConfirmedAt = emailConfirmedAt
        self.confirmationSentAt = confirmationSentAt
        self.recoverySentAt = recoverySentAt
        self.newEmail = newEmail
        self.emailChangeSentAt = emailChangeSentAt
        self.lastSignInAt = lastSignInAt
        self.bannedUntil = bannedUntil
        self.isAnonymous = isAnonymous
        self.invitedAt = invitedAt
        self.appMetadata = appMetadata
        self.userMetadata = userMetadata
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// Whether a ban is in force at `now`.
    public func isBanned(at now: Date) -> Bool {
        guard let bannedUntil else { return false }
        return bannedUntil > now
    }
}

extension UserRecord {
    /// ``email`` as the stores keep it: `NULL` for an anonymous user's empty address, so that the
    /// unique constraint applies to real addresses only.
    var storedEmail: String? { email.isEmpty ? nil : email }
}
