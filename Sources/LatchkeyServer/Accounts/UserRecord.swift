import Foundation
import LatchkeyWire

/// A user account as the store keeps it.
///
/// The password hash never leaves the server: ``UserResponse`` is the wire form.
package struct UserRecord: Sendable, Hashable {
    var id: UUID
    var aud: String
    var role: String
    /// The (normalised) address; empty for an anonymous user.
    var email: String
    /// bcrypt hash; `nil` for an account created by an administrator without a password.
    var passwordHash: String?
    var emailConfirmedAt: Date?
    var confirmationSentAt: Date?
    var recoverySentAt: Date?
    /// An address waiting for confirmation before it replaces ``email``.
    var newEmail: String?
    var emailChangeSentAt: Date?
    var lastSignInAt: Date?
    var bannedUntil: Date?
    /// Signed in without an email address or password (`POST /signup` with neither); ``email``
    /// is empty until the user adds one.
    var isAnonymous: Bool
    /// When an administrator invited the address (`POST /invite`); the user sets a password
    /// after following the invitation.
    var invitedAt: Date?
    /// The phone number in E.164 digits without the `+` (as GoTrue keeps it); empty when the
    /// user has none.
    var phone: String
    var phoneConfirmedAt: Date?
    /// A number waiting for its SMS code before it replaces ``phone`` (GoTrue's `phone_change`).
    var phoneChange: String?
    var phoneChangeSentAt: Date?
    var appMetadata: [String: JSONValue]
    var userMetadata: [String: JSONValue]
    var createdAt: Date
    var updatedAt: Date

    init(
        id: UUID = UUID(), aud: String = "authenticated", role: String = "authenticated", email: String,
        passwordHash: String?, emailConfirmedAt: Date? = nil, confirmationSentAt: Date? = nil,
        recoverySentAt: Date? = nil, newEmail: String? = nil, emailChangeSentAt: Date? = nil,
        lastSignInAt: Date? = nil, bannedUntil: Date? = nil, isAnonymous: Bool = false, invitedAt: Date? = nil,
        appMetadata: [String: JSONValue] = ["provider": .string("email"), "providers": .array([.string("email")])],
        userMetadata: [String: JSONValue] = [:], createdAt: Date, updatedAt: Date, phone: String = "", phoneConfirmedAt: Date? = nil,
        phoneChange: String? = nil, phoneChangeSentAt: Date? = nil
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
        self.phone = phone
        self.phoneConfirmedAt = phoneConfirmedAt
        self.phoneChange = phoneChange
        self.phoneChangeSentAt = phoneChangeSentAt
    }

    /// Whether a ban is in force at `now`.
    func isBanned(at now: Date) -> Bool {
        guard let bannedUntil else { return false }
        return bannedUntil > now
    }
}

extension UserRecord {
    /// The providers of the user's identities (`app_metadata.providers`): `email` for an
    /// account that signs in with its address, then each external provider linked.
    var providers: [String] {
        appMetadata["providers"]?.arrayValue?.compactMap(\.stringValue) ?? (email.isEmpty ? [] : ["email"])
    }

    /// Whether the account signs in with its address (it has GoTrue's `email` identity).
    var hasEmailIdentity: Bool { providers.contains("email") }

    /// Whether any identity at an external provider is linked (so the identities table has rows
    /// for the user); an account that only signs in with its address has none to read.
    var hasLinkedIdentities: Bool { providers.contains { $0 != "email" && $0 != "phone" } }

    /// ``email`` as the stores keep it: `NULL` for an anonymous user's empty address, so that the
    /// unique constraint applies to real addresses only.
    var storedEmail: String? { email.isEmpty ? nil : email }

    /// ``phone`` as the stores keep it: `NULL` when the user has none, so that the unique
    /// constraint applies to real numbers only.
    var storedPhone: String? { phone.isEmpty ? nil : phone }

    /// Whether the account signs in with its phone number (it has GoTrue's `phone` identity).
    var hasPhoneIdentity: Bool { providers.contains("phone") }
}
