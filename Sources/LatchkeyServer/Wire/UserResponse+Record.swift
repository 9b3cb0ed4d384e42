import Foundation
import LatchkeyWire

extension UserResponse {
    /// The GoTrue user object for a stored user.
    init(_ user: UserRecord) {
        let id = user.id.lowercasedString
        self.init(id: id)
        aud = user.aud
        role = user.role
        email = user.email
        email_confirmed_at = user.emailConfirmedAt.map(WireDate.format)
        phone = ""
        confirmation_sent_at = user.confirmationSentAt.map(WireDate.format)
        confirmed_at = email_confirmed_at
        recovery_sent_at = user.recoverySentAt.map(WireDate.format)
        new_email = user.newEmail
        email_change_sent_at = user.emailChangeSentAt.map(WireDate.format)
        last_sign_in_at = user.lastSignInAt.map(WireDate.format)
        app_metadata = user.appMetadata
        user_metadata = user.userMetadata
        banned_until = user.bannedUntil.map(WireDate.format)
        created_at = WireDate.format(user.createdAt)
        updated_at = WireDate.format(user.updatedAt)
        is_anonymous = user.isAnonymous
        invited_at = user.invitedAt.map(WireDate.format)
        identities =
            user.email.isEmpty
            ? []
            : [
                Identity(
                    identity_id: id, id: id, user_id: id,
                    identity_data: [
                        "sub": .string(id), "email": .string(user.email),
                        "email_verified": .bool(user.emailConfirmedAt != nil), "phone_verified": .bool(false),
                    ],
                    provider: "email", last_sign_in_at: last_sign_in_at, created_at: created_at,
                    updated_at: updated_at, email: user.email)
            ]
    }
}

extension ProfileResponse {
    /// What any signed-in user may read about `user`.
    init(_ user: UserRecord) {
        self.init(
            id: user.id.lowercasedString,
            display_name: user.userMetadata["display_name"]?.stringValue
                ?? user.userMetadata["full_name"]?.stringValue ?? user.userMetadata["name"]?.stringValue,
            avatar_url: user.userMetadata["avatar_url"]?.stringValue)
    }
}
