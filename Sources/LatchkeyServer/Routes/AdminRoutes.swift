import Foundation
import Logging
import HTTPTypes
import Hummingbird

/// `/admin/...`: user management and the audit log, for holders of a `service_role` token only.
struct AdminRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        router.get("/admin/users") { request, _ in try await listUsers(request) }
        router.post("/admin/users") { request, context in try await createUser(request, context) }
        router.get("/admin/users/:id") { request, context in
            _ = try await service.authenticateAdmin(request)
            return try JSONBody.response(UserResponse(try await existingUser(context)))
        }
        router.put("/admin/users/:id") { request, context in try await updateUser(request, context) }
        router.delete("/admin/users/:id") { request, context in
            _ = try await service.authenticateAdmin(request)
            let user = try await existingUser(context)
            let deleted = try await service.store.deleteUser(
                id: user.id, audit: audit(.userDeleted, user, context, traits: ["user_email": .string(user.email)]))
            guard deleted else { throw AuthError.userNotFound }
            service.logger.info("user deleted", metadata: ["user_id": "\(user.id)"])
            return JSONBody.empty()
        }
        router.post("/admin/users/:id/logout") { request, context in
            _ = try await service.authenticateAdmin(request)
            let user = try await existingUser(context)
            try await service.store.endSessions(
                userID: user.id, except: nil, only: nil, audit: audit(.logout, user, context, traits: ["scope": .string("admin")]))
            return Response(status: .noContent)
        }
        router.get("/admin/audit") { request, _ in
            _ = try await service.authenticateAdmin(request)
            let (offset, limit) = try page(request)
            let entries = try await service.store.auditEntries(offset: offset, limit: limit)
            return try JSONBody.response(entries.map(AuditResponse.init))
        }
    }

    func audit(_ action: AuditEntry.Action, _ user: UserRecord, _ context: AuthRequestContext, traits: [String: JSONValue] = [:]) -> AuditEntry {
        var allTraits = traits
        allTraits["user_id"] = .string(user.id.uuidString.lowercased())
        return AuditEntry(action: action, actorID: nil, actorUsername: "service_role", traits: allTraits, ipAddress: context.clientIP, createdAt: service.clock.now())
    }

    func existingUser(_ context: AuthRequestContext) async throws -> UserRecord {
        guard let text = context.parameters.get("id"), let id = UUID(uuidString: text),
            let user = try await service.store.user(id: id)
        else { throw AuthError.userNotFound }
        return user
    }

    func page(_ request: Request) throws -> (offset: Int, limit: Int) {
        let query = request.uri.queryParameters
        let page = try query.get("page").map { text throws(AuthError) -> Int in
            guard let value = Int(text), value >= 1 else { throw AuthError.validation("page must be a positive integer") }
            return value
        } ?? 1
        let perPage = try query.get("per_page").map { text throws(AuthError) -> Int in
            guard let value = Int(text), (1...1000).contains(value) else { throw AuthError.validation("per_page must be between 1 and 1000") }
            return value
        } ?? 50
        let (offset, overflow) = (page - 1).multipliedReportingOverflow(by: perPage)
        guard !overflow else { throw AuthError.validation("page is too large") }
        return (offset, perPage)
    }

    func listUsers(_ request: Request) async throws -> Response {
        _ = try await service.authenticateAdmin(request)
        let (offset, limit) = try page(request)
        let (users, total) = try await service.store.listUsers(offset: offset, limit: limit)
        return try JSONBody.response(
            UserList(users: users.map(UserResponse.init), aud: "authenticated"),
            headers: [HTTPField.Name("X-Total-Count")!: String(total)])
    }

    func createUser(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        _ = try await service.authenticateAdmin(request)
        let body = try await JSONBody.decode(AdminUserBody.self, from: request, context: context)
        let email = try InputRules.normalizedEmail(body.email)
        let now = service.clock.now()
        var user = UserRecord(email: email, passwordHash: nil, userMetadata: body.user_metadata ?? [:], createdAt: now, updatedAt: now)
        if let password = body.password {
            try InputRules.checkPassword(password, minimumLength: service.configuration.minimumPasswordLength)
            user.passwordHash = try await service.hasher.hash(password)
        }
        try apply(body, to: &user, now: now)
        do {
            try await service.store.insertUser(user, audit: audit(.userSignedUp, user, context, traits: ["provider": .string("admin")]))
        } catch StoreError.duplicateEmail {
            throw AuthError.emailExists
        }
        return try JSONBody.response(UserResponse(user))
    }

    func updateUser(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        _ = try await service.authenticateAdmin(request)
        var user = try await existingUser(context)
        let body = try await JSONBody.decode(AdminUserBody.self, from: request, context: context)
        let now = service.clock.now()
        if let email = body.email { user.email = try InputRules.normalizedEmail(email) }
        if let password = body.password {
            try InputRules.checkPassword(password, minimumLength: service.configuration.minimumPasswordLength)
            user.passwordHash = try await service.hasher.hash(password)
        }
        if let metadata = body.user_metadata { user.userMetadata = metadata }
        try apply(body, to: &user, now: now)
        user.updatedAt = now
        do {
            try await service.store.updateUser(user, audit: audit(.userModified, user, context))
        } catch StoreError.duplicateEmail {
            throw AuthError.emailExists
        }
        return try JSONBody.response(UserResponse(user))
    }

    /// Fields that creating and updating share: confirmation, app metadata, role, ban.
    func apply(_ body: AdminUserBody, to user: inout UserRecord, now: Date) throws {
        if let confirm = body.email_confirm {
            user.emailConfirmedAt = confirm ? (user.emailConfirmedAt ?? now) : nil
        }
        if let appMetadata = body.app_metadata {
            for (key, value) in appMetadata { user.appMetadata[key] = value == .null ? nil : value }
        }
        if let role = body.role {
            guard !role.isEmpty, role.count <= 64 else { throw AuthError.validation("role must be 1 to 64 characters") }
            // A user's own access token must never carry the administrator role.
            guard role != "service_role" else { throw AuthError.validation("role service_role is reserved for API keys") }
            user.role = role
        }
        if let ban = body.ban_duration {
            user.bannedUntil = try InputRules.banDuration(ban).map { now.addingTimeInterval($0) }
        }
    }

    struct UserList: Encodable {
        var users: [UserResponse]
        var aud: String
    }

    struct AuditResponse: Encodable {
        struct Payload: Encodable {
            var action: String
            var actor_id: String
            var actor_username: String
            var actor_via_sso = false
            var log_type: String
            var traits: [String: JSONValue]
        }
        var id: String
        var payload: Payload
        var created_at: String
        var ip_address: String

        init(_ entry: AuditEntry) {
            id = entry.id.uuidString.lowercased()
            payload = Payload(
                action: entry.action.rawValue, actor_id: entry.actorID?.uuidString.lowercased() ?? "",
                actor_username: entry.actorUsername ?? "", log_type: entry.logType, traits: entry.traits)
            created_at = WireDate.format(entry.createdAt)
            ip_address = entry.ipAddress
        }
    }
}
