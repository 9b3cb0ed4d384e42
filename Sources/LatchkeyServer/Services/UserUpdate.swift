import Foundation

/// `PUT /user`: the signed-in user changes their metadata, password or email address.
///
/// Metadata is merged key by key (`null` removes a key). A new password ends the user's other
/// sessions (``PasswordPolicy``). A new email replaces the address at once with autoconfirm;
/// otherwise it waits as `new_email` until the link mailed to it is followed.
struct UserUpdate: Sendable {
    private let store: any AuthStore
    private let clock: any ServerClock
    private let passwords: PasswordPolicy
    private let limits: RateLimits
    private let emailLinks: EmailLinks
    /// Whether a new address applies without confirmation.
    private let autoconfirm: Bool

    init(store: any AuthStore, clock: any ServerClock, passwords: PasswordPolicy, limits: RateLimits, emailLinks: EmailLinks, autoconfirm: Bool) {
        self.store = store
        self.clock = clock
        self.passwords = passwords
        self.limits = limits
        self.emailLinks = emailLinks
        self.autoconfirm = autoconfirm
    }

    func update(_ signedIn: BearerAuthentication.Authenticated, with body: UpdateUserBody, ipAddress: String) async throws -> UserResponse {
        let now = clock.now()
        var user = signedIn.user
        if let data = body.data {
            for (key, value) in data {
                if value == .null { user.userMetadata.removeValue(forKey: key) } else { user.userMetadata[key] = value }
            }
        }
        if let password = body.password {
            user.passwordHash = try await passwords.hash(password)
        }
        var pendingEmail: String?
        if let rawEmail = body.email {
            let email = try InputRules.normalizedEmail(rawEmail)
            if email != user.email {
                if try await store.user(email: email) != nil { throw AuthError.emailExists }
                if autoconfirm {
                    user.email = email
                } else {
                    pendingEmail = email
                }
            }
        }
        user.updatedAt = now
        let audit = AuditEntry(
            action: body.password != nil ? .userUpdatedPassword : .userModified, actorID: user.id, actorUsername: user.email,
            ipAddress: ipAddress, createdAt: now)
        do {
            try await store.updateUser(user, audit: audit)
        } catch StoreError.duplicateEmail {
            throw AuthError.emailExists
        }
        if body.password != nil {
            try await passwords.passwordChanged(userID: user.id, keeping: signedIn.session.id)
        }
        if let pendingEmail {
            try limits.admitEmail(to: pendingEmail)
            try await emailLinks.send(.emailChange, to: user, address: pendingEmail, redirectTo: nil, ipAddress: ipAddress)
        }
        return UserResponse(try await store.user(id: user.id) ?? user)
    }
}
