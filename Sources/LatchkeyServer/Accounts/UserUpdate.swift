import Foundation
import LatchkeyWire

/// `PUT /user`: the signed-in user changes their metadata, password, email address or phone number.
///
/// Metadata is merged key by key (`null` removes a key). A new password ends the user's other
/// sessions (``PasswordPolicy``). A new email replaces the address at once with autoconfirm;
/// otherwise it waits as `new_email` until the link or code mailed to it is used (a PKCE flow
/// when the body carries a `code_challenge`). An anonymous user becomes permanent once an
/// address is confirmed; it cannot set a password without giving an address. A new phone number
/// waits as `new_phone` until the code sent to it is verified (`phone_change`), or applies at once
/// with SMS autoconfirm.
struct UserUpdate: ServiceDependent {
    let shared: ServiceDependencies
    let emailLinks: EmailLinks
    let reauthentication: Reauthentication
    /// Whether a new address applies without confirmation.
    let autoconfirm: Bool
    /// Whether a new password needs the current one (outside a recovery session).
    var requireCurrentPassword: Bool = false
    /// Phone numbers' codes; `nil` when phone sign-in is off.
    var phoneCodes: PhoneCodes? = nil

    func update(
        _ signedIn: BearerAuthentication.Authenticated, with body: UpdateUserBody, redirectTo: String? = nil, ipAddress: String
    ) async throws -> UserResponse {
        let now = clock.now()
        var user = signedIn.user
        let pkce = try PKCEChallenge(challenge: body.code_challenge, method: body.code_challenge_method)
        let newPhone = try phoneChange(body, of: user)
        if user.isAnonymous, let password = body.password, !password.isEmpty, body.email == nil, newPhone == nil {
            throw AuthError.anonymousPasswordWithoutEmail
        }
        let changesPassword = body.password.map { !$0.isEmpty } ?? false
        let changesEmail = body.email.map { !$0.isEmpty && (try? InputRules.normalizedEmail($0)) != user.email } ?? false
        if changesPassword || changesEmail || newPhone != nil, signedIn.session.aal != .aal2,
            try await store.factors(userID: user.id).hasVerifiedFactor
        {
            // GoTrue: with a verified factor, a new password or email needs an aal2 session.
            throw AuthError.aal2RequiredToUpdateUser
        }
        if body.password != nil {
            try await reauthentication.authorizePasswordChange(signedIn, nonce: body.nonce)
        }
        if let data = body.data {
            for (key, value) in data {
                if value == .null { user.userMetadata.removeValue(forKey: key) } else { user.userMetadata[key] = value }
            }
        }
        if let password = body.password {
            // As GoTrue: the policy first, then the current password, then "not the same one".
            try await passwords.check(password)
            if !password.isEmpty, user.passwordHash != nil {
                try await checkCurrentPassword(body.current_password, of: user, in: signedIn.session)
                if try await passwords.verify(password, against: user.passwordHash) { throw AuthError.samePassword }
            }
            user.passwordHash = try await passwords.hash(checked: password)
        }
        var pendingEmail: String?
        if let rawEmail = body.email {
            let email = try InputRules.normalizedEmail(rawEmail)
            if email != user.email {
                try await limits.admitAddressChange(by: user.id)
                if try await store.user(email: email) != nil { throw AuthError.emailExists }
                if autoconfirm, user.isAnonymous {
                    // As GoTrue: only an anonymous user's first address is taken at once under
                    // autoconfirm (it is a sign-up); a permanent user's new address is always
                    // confirmed first, or a stolen session could take the account by changing it.
                    user.email = email
                    user.isAnonymous = false
                    user.emailConfirmedAt = now
                } else {
                    pendingEmail = email
                }
            }
        }
        var pendingPhone: (phone: String, channel: SMSMessage.Channel)?
        // A number taken at once (SMS autoconfirm): the one it replaces, and whether the user had a phone identity.
        var changedPhone: (old: String, hadIdentity: Bool)?
        if let newPhone, let phoneCodes {
            try await limits.admitAddressChange(by: user.id)
            if try await store.user(phone: newPhone.phone) != nil {
                throw AuthError.phoneTaken
            }
            if phoneCodes.settings.autoconfirm {
                changedPhone = (user.phone, user.hasPhoneIdentity)
                user.phone = newPhone.phone
                user.phoneConfirmedAt = now
                user.isAnonymous = false
                if !user.hasPhoneIdentity { user.appMetadata["providers"] = .array((user.providers + ["phone"]).map(JSONValue.string)) }
            } else {
                pendingPhone = newPhone
            }
        }
        user.updatedAt = now
        let audit = AuditEntry(
            action: body.password != nil ? .userUpdatedPassword : .userModified, actorID: user.id, actorUsername: user.email,
            ipAddress: ipAddress, createdAt: now)
        try await store.updateUser(user, audit: audit, endingSessions: body.password != nil ? .allBut(signedIn.session.id) : nil)
        if body.password != nil { notices.send(.passwordChanged, about: user) }
        if let changedPhone {
            // The notices the code's verification would have sent, as GoTrue's autoconfirm path sends them.
            notices.send(.phoneChanged(oldPhone: changedPhone.old), about: user)
            if !changedPhone.hadIdentity { notices.send(.identityLinked(provider: "phone"), about: user) }
        }
        if let pendingEmail {
            let slot = try await limits.admitEmail(to: pendingEmail, for: .emailChange)
            try await emailLinks.sendEmailChange(
                to: user, newEmail: pendingEmail, redirectTo: redirectTo, pkce: pkce, ipAddress: ipAddress, slot: slot)
        }
        if let pendingPhone, let phoneCodes {
            try await phoneCodes.send(
                .phoneChange, to: try await store.user(id: user.id) ?? user, phone: pendingPhone.phone, channel: pendingPhone.channel,
                ipAddress: ipAddress)
        }
        let stored = try await store.user(id: user.id) ?? user
        return UserResponse(stored, factors: try await store.factors(userID: user.id), identities: try await store.linkedIdentities(of: stored))
    }

    /// With ``requireCurrentPassword``, a new password needs `current` to be the user's password,
    /// unless the session was started by a recovery link or code (the user has forgotten it):
    /// none is 400 `current_password_required`, a wrong one 400 `current_password_mismatch`.
    private func checkCurrentPassword(_ current: String?, of user: UserRecord, in session: SessionRecord) async throws {
        guard requireCurrentPassword, session.authMethod != "recovery" else { return }
        guard let current, !current.isEmpty else { throw AuthError.currentPasswordRequired }
        guard try await passwords.verify(current, against: user.passwordHash) else { throw AuthError.currentPasswordMismatch }
    }

    /// The new number `body` asks for (and how its code travels), checked; `nil` when it asks
    /// for none or for the user's own. With phone sign-in off a number is 400
    /// `phone_provider_disabled`.
    private func phoneChange(_ body: UpdateUserBody, of user: UserRecord) throws(AuthError) -> (phone: String, channel: SMSMessage.Channel)? {
        guard let raw = body.phone, !raw.isEmpty else { return nil }
        let phone = try InputRules.normalizedPhone(raw)
        let channel = try PhoneCodes.channel(body.channel)
        guard phone != user.phone else { return nil }
        guard phoneCodes != nil else { throw AuthError.phoneProviderDisabled() }
        return (phone, channel)
    }
}
