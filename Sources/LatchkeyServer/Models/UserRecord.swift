import Foundation
import LatchkeyWire

/// A user account as the store keeps it.
///
/// The password hash never leaves the server: ``UserResponse`` is the wire form.
package struct UserRecord: Sendable, Hashable {
    package var id: UUID
    package var aud: String
    package var role: String
    /// The (normalised) address; empty for an anonymous user.
    package var email: String
    /// bcrypt hash; `nil` for an account created by an administrator without a password.
    package var passwordHash: String?
    package var emailConfirmedAt: Date?
    package var confirmationSentAt: Date?
    package var recoverySentAt: Date?
    /// An address waiting for confirmation before it replaces ``email``.
    package var newEmail: String?
    package var emailChangeSentAt: Date?
    package var lastSignInAt: Date?
    package var bannedUntil: Date?
    /// Signed in without an email address or password (`POST /signup` with neither); ``email``
    /// is empty until the user adds one.
    package var isAnonymous: Bool
    /// When an administrator invited the address (`POST /invite`); the user sets a password
    /// after following the invitation.
    package var invitedAt: Date?
    package var appMetadata: [String: JSONValue]
    package var userMetadata: [String: JSONValue]
    package var createdAt: Date
    package var updatedAt: Date

    package init(
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
    package func isBanned(at now: Date) -> Bool {
        guard let bannedUntil else { return false }
        return bannedUntil > now
    }
}

extension UserRecord {
    /// The providers of the user's identities (`app_metadata.providers`): `email` for an
    /// account that signs in with its address, then each external provider linked.
    package var providers: [String] {
        appMetadata["providers"]?.arrayValue?.compactMap(\.stringValue) ?? (email.isEmpty ? [] : ["email"])
    }

    /// Whether the account signs in with its address (it has GoTrue's `email` identity).
    var hasEmailIdentity: Bool { providers.contains("email") }

    /// Whether any identity at an external provider is linked (so the identities table has rows
    /// for the user); an account that only signs in with its address has none to read.
    package var hasLinkedIdentities: Bool { providers.contains { $0 != "email" } }

    /// ``email`` as the stores keep it: `NULL` for an anonymous user's empty address, so that the
    /// unique constraint applies to real addresses only.
    var storedEmail: String? { email.isEmpty ? nil : email }
}
