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
        phone = user.phone
        phone_confirmed_at = user.phoneConfirmedAt.map(WireDate.format)
        confirmation_sent_at = user.confirmationSentAt.map(WireDate.format)
        confirmed_at = email_confirmed_at ?? phone_confirmed_at
        recovery_sent_at = user.recoverySentAt.map(WireDate.format)
        new_email = user.newEmail
        email_change_sent_at = user.emailChangeSentAt.map(WireDate.format)
        new_phone = user.phoneChange
        phone_change_sent_at = user.phoneChangeSentAt.map(WireDate.format)
        last_sign_in_at = user.lastSignInAt.map(WireDate.format)
        app_metadata = user.appMetadata
        user_metadata = user.userMetadata
        banned_until = user.bannedUntil.map(WireDate.format)
        created_at = WireDate.format(user.createdAt)
        updated_at = WireDate.format(user.updatedAt)
        is_anonymous = user.isAnonymous
        invited_at = user.invitedAt.map(WireDate.format)
        identities = Self.identities(of: user, linked: [])
    }
}

extension UserResponse {
    /// The GoTrue user object with the user's factors and identities at external providers.
    init(_ user: UserRecord, factors: [FactorRecord], identities: [IdentityRecord]) {
        self.init(user)
        self.factors = factors.isEmpty ? nil : factors.map(FactorResponse.init)
        self.identities = Self.identities(of: user, linked: identities)
    }

    /// The user's identities as GoTrue lists them: the `email` identity of an account that
    /// signs in with its address (its id is the user's), the `phone` identity of one that signs
    /// in with its number, then each linked identity, oldest first.
    static func identities(of user: UserRecord, linked: [IdentityRecord]) -> [Identity] {
        var identities: [Identity] = []
        if !user.email.isEmpty, user.hasEmailIdentity {
            identities.append(ownIdentity(of: user, "email", user.email, emailVerified: user.emailConfirmedAt != nil, phoneVerified: false))
        }
        if !user.phone.isEmpty, user.hasPhoneIdentity {
            identities.append(ownIdentity(of: user, "phone", user.phone, emailVerified: false, phoneVerified: user.phoneConfirmedAt != nil))
        }
        for identity in linked {
            identities.append(
                Identity(
                    identity_id: identity.id.lowercasedString, id: identity.subject, user_id: identity.userID.lowercasedString,
                    identity_data: identity.identityData, provider: identity.provider,
                    last_sign_in_at: identity.lastSignInAt.map(WireDate.format), created_at: WireDate.format(identity.createdAt),
                    updated_at: WireDate.format(identity.updatedAt), email: identity.email))
        }
        return identities
    }

    /// The identity `user` has of its own address or number (`provider` is `email` or
    /// `phone`, and `value` the address or number): its id is the user's.
    private static func ownIdentity(
        of user: UserRecord, _ provider: String, _ value: String, emailVerified: Bool, phoneVerified: Bool
    ) -> Identity {
        let id = user.id.lowercasedString
        return Identity(
            identity_id: id, id: id, user_id: id,
            identity_data: [
                "sub": .string(id), provider: .string(value),
                "email_verified": .bool(emailVerified), "phone_verified": .bool(phoneVerified),
            ],
            provider: provider, last_sign_in_at: user.lastSignInAt.map(WireDate.format), created_at: WireDate.format(user.createdAt),
            updated_at: WireDate.format(user.updatedAt), email: provider == "email" ? value : nil)
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
