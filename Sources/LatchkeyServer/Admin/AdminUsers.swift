import Foundation
import HTTPTypes
import LatchkeyWire
import Logging

/// `/admin/users…`: user management for holders of the `service_role` key (the route checks
/// the key first). Every change is audited with the administrator as the actor.
struct AdminUsers: Sendable {
    private let store: any AuthStore
    private let clock: any ServerClock
    private let passwords: PasswordPolicy
    /// Roles reserved for API keys: no user may hold one.
    private let adminRoles: [String]
    private let logger: Logger

    init(
        store: any AuthStore, clock: any ServerClock, passwords: PasswordPolicy,
        adminRoles: [String] = ServerConfiguration.defaultJWTAdminRoles, logger: Logger
    ) {
        self.store = store
        self.clock = clock
        self.passwords = passwords
        self.adminRoles = adminRoles
        self.logger = logger
    }

    /// One page of the users `listing` selects, in its order (newest first by default), and
    /// how many it selects in all.
    func list(_ page: Page, listing: UserListing = UserListing()) async throws -> (users: UserListResponse, total: Int) {
        let (users, total) = try await store.listUsers(offset: page.offset, limit: page.limit, listing: listing)
        return (UserListResponse(users: users.map(UserResponse.init)), total)
    }

    func user(_ id: UUID) async throws -> UserResponse {
        let user = try await existingUser(id)
        return UserResponse(user, factors: try await store.factors(userID: id), identities: try await store.linkedIdentities(of: user))
    }

    /// Creates an account with an email address, a phone number or both (providers `email` and
    /// `phone`): unconfirmed unless `email_confirm` (`phone_confirm`), without a password unless one
    /// (or a `password_hash` of another system, see ``StoredPasswordHash``) is given, with the
    /// `id` given or a new one. A taken id is 422 `user_already_exists`, a taken number 422
    /// `phone_exists`.
    func create(_ body: AdminUserBody, ipAddress: String) async throws -> UserResponse {
        let hasEmail = !(body.email ?? "").isEmpty
        let hasPhone = !(body.phone ?? "").isEmpty
        guard hasEmail || hasPhone else { throw AuthError.validation("Cannot create a user without either an email or phone") }
        let email = hasEmail ? try InputRules.normalizedEmail(body.email) : ""
        let phone = hasPhone ? try InputRules.normalizedPhone(body.phone) : ""
        let now = clock.now()
        let providers = (hasEmail ? ["email"] : []) + (hasPhone ? ["phone"] : [])
        var user = UserRecord(
            email: email, passwordHash: nil,
            appMetadata: ["provider": .string(providers[0]), "providers": .array(providers.map(JSONValue.string))],
            userMetadata: body.user_metadata ?? [:], createdAt: now, updatedAt: now, phone: phone)
        if let id = try Self.requestedID(body.id) { user.id = id }
        if let hash = try Self.passwordHash(body) {
            user.passwordHash = hash
        } else if let password = body.password {
            user.passwordHash = try await passwords.hash(password)
        }
        try apply(body, to: &user, now: now)
        do {
            try await store.insertUser(user, audit: audit(.userSignedUp, user, ipAddress: ipAddress, traits: ["provider": .string("admin")]))
        } catch StoreError.duplicateUserID {
            throw AuthError.userIDExists
        }
        return UserResponse(user)
    }

    /// Changes the fields `body` names. A new email applies at once; `user_metadata` replaces
    /// the whole object; a new password ends every session of the user.
    func update(_ id: UUID, with body: AdminUserBody, ipAddress: String) async throws -> UserResponse {
        var user = try await existingUser(id)
        // An id names the user: it is never changed (the path's own id is accepted as it is).
        if let requested = try Self.requestedID(body.id), requested != id {
            throw AuthError.validation("A user's ID cannot be changed")
        }
        let now = clock.now()
        if let email = body.email { user.email = try InputRules.normalizedEmail(email) }
        if let phone = body.phone, !phone.isEmpty {
            user.phone = try InputRules.normalizedPhone(phone)
            if !user.hasPhoneIdentity { user.appMetadata["providers"] = .array((user.providers + ["phone"]).map(JSONValue.string)) }
        }
        let newHash = try Self.passwordHash(body)
        if let newHash {
            user.passwordHash = newHash
        } else if let password = body.password {
            user.passwordHash = try await passwords.hash(password)
        }
        if let metadata = body.user_metadata { user.userMetadata = metadata }
        try apply(body, to: &user, now: now)
        user.updatedAt = now
        let passwordChanged = body.password != nil || newHash != nil
        try await store.updateUser(user, audit: audit(.userModified, user, ipAddress: ipAddress), endingSessions: passwordChanged ? .all : nil)
        return UserResponse(user)
    }

    /// The `id` asked for, as GoTrue reads it: absent or empty is none; anything but a UUID, or
    /// the nil UUID, is 400 `validation_failed`.
    static func requestedID(_ text: String?) throws -> UUID? {
        guard let text, !text.isEmpty else { return nil }
        guard let id = UUID(uuidString: text) else { throw AuthError.validation("ID must conform to the uuid v4 format") }
        guard id != UUID(uuid: (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)) else { throw AuthError.validation("ID cannot be a nil uuid") }
        return id
    }

    /// The `password_hash` to store as it is, checked: absent or empty is none; given with a
    /// `password` it is 400 (as GoTrue); a hash the server cannot read is 400 and one it will
    /// not verify (argon2d, an Argon2 cost above ``Argon2Hash``'s limits) 422, both `validation_failed`.
    static func passwordHash(_ body: AdminUserBody) throws -> String? {
        guard let hash = body.password_hash, !hash.isEmpty else { return nil }
        guard body.password == nil else { throw AuthError.validation("Only a password or a password hash should be provided") }
        do throws(PasswordHashError) {
            _ = try StoredPasswordHash(importing: hash)
        } catch .malformed(let reason) {
            throw AuthError.validation(reason)
        } catch .unsupported(let reason) {
            throw AuthError(.unprocessableContent, "validation_failed", reason)
        }
        return hash
    }

    /// Deletes the user with all their sessions, tokens and links.
    func delete(_ id: UUID, ipAddress: String) async throws {
        let user = try await existingUser(id)
        let deleted = try await store.deleteUser(
            id: user.id, audit: audit(.userDeleted, user, ipAddress: ipAddress, traits: ["user_email": .string(user.email)]))
        guard deleted else { throw AuthError.userNotFound }
        logger.info("user deleted", metadata: ["user_id": "\(user.id)"])
    }

    /// Ends every session of the user.
    func logOut(_ id: UUID, ipAddress: String) async throws {
        let user = try await existingUser(id)
        try await store.endSessions(
            userID: user.id, except: nil, only: nil, audit: audit(.logout, user, ipAddress: ipAddress, traits: ["scope": .string("admin")]))
    }

    private func existingUser(_ id: UUID) async throws -> UserRecord {
        guard let user = try await store.user(id: id) else { throw AuthError.userNotFound }
        return user
    }

    private func audit(_ action: AuditEntry.Action, _ user: UserRecord, ipAddress: String, traits: [String: JSONValue] = [:]) -> AuditEntry {
        var allTraits = traits
        allTraits["user_id"] = .string(user.id.lowercasedString)
        return AuditEntry(
            action: action, actorID: nil, actorUsername: "service_role", traits: allTraits, ipAddress: ipAddress, createdAt: clock.now())
    }

    /// Fields that creating and updating share: confirmation, app metadata, role, ban.
    private func apply(_ body: AdminUserBody, to user: inout UserRecord, now: Date) throws {
        if let confirm = body.email_confirm {
            user.emailConfirmedAt = confirm ? (user.emailConfirmedAt ?? now) : nil
        }
        if let confirm = body.phone_confirm, !user.phone.isEmpty {
            user.phoneConfirmedAt = confirm ? (user.phoneConfirmedAt ?? now) : nil
            if confirm { user.isAnonymous = false }
        }
        if let appMetadata = body.app_metadata {
            for (key, value) in appMetadata { user.appMetadata[key] = value == .null ? nil : value }
        }
        if let role = body.role {
            guard !role.isEmpty, role.count <= 64 else { throw AuthError.validation("role must be 1 to 64 characters") }
            // A user's own access token must never carry an administrator role.
            guard !adminRoles.contains(role) else { throw AuthError.validation("role \(role) is reserved for API keys") }
            user.role = role
        }
        if let ban = body.ban_duration {
            user.bannedUntil = try InputRules.banDuration(ban).map { now.addingTimeInterval($0) }
        }
    }
}
