import Foundation
import Logging
import Hummingbird

/// `GET/PUT /user` (the signed-in user) and `GET/PUT /profiles/{id}` (public profiles: anyone
/// signed in reads any profile, only the owner writes theirs).
struct UserRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        router.get("/user") { request, _ in
            try JSONBody.response(UserResponse(try await service.authenticateUser(request).user))
        }
        router.put("/user") { request, context in try await updateUser(request, context) }
        router.get("/profiles/:id") { request, context in
            _ = try await service.authenticateUser(request)
            guard let user = try await service.store.user(id: try profileID(context)) else { throw AuthError.userNotFound }
            return try JSONBody.response(ProfileResponse(user))
        }
        router.put("/profiles/:id") { request, context in try await updateProfile(request, context) }
    }

    func profileID(_ context: AuthRequestContext) throws -> UUID {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text) else { throw AuthError.userNotFound }
        return id
    }

    func updateUser(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let auth = try await service.authenticateUser(request)
        let body = try await JSONBody.decode(UpdateUserBody.self, from: request, context: context)
        let now = service.clock.now()
        var user = auth.user
        var changedPassword = false

        if let data = body.data {
            // GoTrue merges top-level keys; a null value removes the key.
            for (key, value) in data {
                if value == .null { user.userMetadata.removeValue(forKey: key) } else { user.userMetadata[key] = value }
            }
        }
        if let password = body.password {
            try InputRules.checkPassword(password, minimumLength: service.configuration.minimumPasswordLength)
            user.passwordHash = try await service.hasher.hash(password)
            changedPassword = true
        }
        var pendingEmail: String?
        if let rawEmail = body.email {
            let email = try InputRules.normalizedEmail(rawEmail)
            if email != user.email {
                if try await service.store.user(email: email) != nil { throw AuthError.emailExists }
                if service.configuration.autoconfirm {
                    user.email = email
                } else {
                    pendingEmail = email
                }
            }
        }
        user.updatedAt = now
        let audit = AuditEntry(
            action: changedPassword ? .userUpdatedPassword : .userModified, actorID: user.id, actorUsername: user.email,
            ipAddress: context.clientIP, createdAt: now)
        do {
            try await service.store.updateUser(user, audit: audit)
        } catch StoreError.duplicateEmail {
            throw AuthError.emailExists
        }
        if changedPassword {
            // A new password ends every other session: whoever knew the old one is signed out.
            try await service.store.endSessions(userID: user.id, except: auth.session.id, only: nil, audit: nil)
        }
        if let pendingEmail {
            try service.limitEmail(to: pendingEmail)
            try await service.sendLink(.emailChange, to: user, address: pendingEmail, redirectTo: nil, ipAddress: context.clientIP)
        }
        return try JSONBody.response(UserResponse(try await service.store.user(id: user.id) ?? user))
    }

    func updateProfile(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let auth = try await service.authenticateUser(request)
        let id = try profileID(context)
        guard id == auth.user.id else {
            throw AuthError(.forbidden, "insufficient_permissions", "You can only change your own profile")
        }
        let body = try await JSONBody.decode(ProfileUpdateBody.self, from: request, context: context)
        var user = auth.user
        if let name = body.display_name {
            let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
            guard trimmed.count <= 100 else { throw AuthError.validation("display_name must be at most 100 characters") }
            user.userMetadata["display_name"] = trimmed.isEmpty ? nil : .string(trimmed)
        }
        if let avatar = body.avatar_url {
            if avatar.isEmpty {
                user.userMetadata["avatar_url"] = nil
            } else {
                guard avatar.count <= 2048, let url = URL(string: avatar), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
                    throw AuthError.validation("avatar_url must be an http or https URL")
                }
                user.userMetadata["avatar_url"] = .string(avatar)
            }
        }
        user.updatedAt = service.clock.now()
        try await service.store.updateUser(
            user, audit: AuditEntry(action: .userModified, actorID: user.id, actorUsername: user.email,
                                    traits: ["profile": .bool(true)], ipAddress: context.clientIP, createdAt: user.updatedAt))
        return try JSONBody.response(ProfileResponse(user))
    }
}
