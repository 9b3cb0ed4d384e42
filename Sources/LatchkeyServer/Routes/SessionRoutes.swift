import Foundation
import Logging
import Hummingbird

/// `POST /signup`, `POST /token` and `POST /logout`: creating, renewing and ending sessions.
struct SessionRoutes {
    let service: AuthService

    func register(on router: Router<AuthRequestContext>) {
        router.post("/signup") { request, context in try await signUp(request, context) }
        router.post("/token") { request, context in try await token(request, context) }
        router.post("/logout") { request, context in try await logout(request, context) }
    }

    func signUp(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let body = try await JSONBody.decode(SignUpBody.self, from: request, context: context)
        guard !service.configuration.disableSignup else { throw AuthError.signupDisabled }
        try service.limit("signin-ip:\(context.clientIP)", service.limits.signInsPerIP)
        let email = try InputRules.normalizedEmail(body.email)
        guard let password = body.password else { throw AuthError.validation("Signup requires a valid password") }
        try InputRules.checkPassword(password, minimumLength: service.configuration.minimumPasswordLength)
        let redirect = body.email_redirect_to ?? body.redirect_to ?? request.uri.queryParameters.get("redirect_to")

        if let existing = try await service.store.user(email: email) {
            guard existing.emailConfirmedAt == nil else { throw AuthError.userAlreadyExists }
            // An unconfirmed sign-up repeated: send the confirmation again, change nothing else.
            try service.limitEmail(to: email)
            try await service.store.appendAudit(
                AuditEntry(action: .userRepeatedSignUp, actorID: existing.id, actorUsername: email, ipAddress: context.clientIP, createdAt: service.clock.now()))
            try await service.sendLink(.signup, to: existing, address: email, redirectTo: redirect, ipAddress: context.clientIP)
            return try JSONBody.response(UserResponse(try await service.store.user(id: existing.id) ?? existing))
        }

        let now = service.clock.now()
        let hash = try await service.hasher.hash(password)
        var user = UserRecord(email: email, passwordHash: hash, userMetadata: body.data ?? [:], createdAt: now, updatedAt: now)
        if service.configuration.autoconfirm { user.emailConfirmedAt = now }
        do {
            try await service.store.insertUser(
                user, audit: AuditEntry(action: .userSignedUp, actorID: user.id, actorUsername: email,
                                        traits: ["provider": .string("email")], ipAddress: context.clientIP, createdAt: now))
        } catch StoreError.duplicateEmail {
            throw AuthError.userAlreadyExists
        }
        service.logger.info("user signed up", metadata: ["user_id": "\(user.id)", "email_hash": "\(EmailHash.of(email))"])
        if service.configuration.autoconfirm {
            return try JSONBody.response(try await service.startSession(for: user, method: "password", ipAddress: context.clientIP))
        }
        try service.limitEmail(to: email)
        try await service.sendLink(.signup, to: user, address: email, redirectTo: redirect, ipAddress: context.clientIP)
        return try JSONBody.response(UserResponse(try await service.store.user(id: user.id) ?? user))
    }

    func token(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        switch request.uri.queryParameters.get("grant_type") {
        case "password":
            let body = try await JSONBody.decode(PasswordGrantBody.self, from: request, context: context)
            return try JSONBody.response(try await passwordGrant(body, ipAddress: context.clientIP))
        case "refresh_token":
            let body = try await JSONBody.decode(RefreshGrantBody.self, from: request, context: context)
            guard let token = body.refresh_token, !token.isEmpty else { throw AuthError.validation("refresh_token required") }
            return try JSONBody.response(try await service.refresh(token: token, ipAddress: context.clientIP))
        case nil:
            throw AuthError(.badRequest, "validation_failed", "grant_type is required: password or refresh_token")
        case let other?:
            throw AuthError(.badRequest, "unsupported_grant_type", "Unsupported grant_type \"\(other.prefix(40))\": use password or refresh_token")
        }
    }

    func passwordGrant(_ body: PasswordGrantBody, ipAddress: String) async throws -> SessionResponse {
        try service.limit("signin-ip:\(ipAddress)", service.limits.signInsPerIP)
        let email = try InputRules.normalizedEmail(body.email)
        guard let password = body.password, !password.isEmpty else { throw AuthError.validation("Missing password") }
        let accountKey = "failed-password:\(email)"
        // Checked before bcrypt runs, so a locked account costs an attacker's requests no CPU.
        if let retryAfter = service.limiter.check(accountKey, limit: service.limits.failedPasswordAttemptsPerAccount) {
            throw AuthError.rateLimited(retryAfter: retryAfter)
        }
        let user = try await service.store.user(email: email)
        guard try await service.hasher.verify(password, against: user?.passwordHash), let user else {
            service.limiter.record(accountKey, limit: service.limits.failedPasswordAttemptsPerAccount)
            service.logger.info("sign-in refused: invalid credentials", metadata: ["email_hash": "\(EmailHash.of(email))"])
            throw AuthError.invalidCredentials
        }
        service.limiter.reset(accountKey)
        guard user.emailConfirmedAt != nil else { throw AuthError.emailNotConfirmed }
        guard !user.isBanned(at: service.clock.now()) else { throw AuthError.userBanned }
        return try await service.startSession(for: user, method: "password", ipAddress: ipAddress)
    }

    func logout(_ request: Request, _ context: AuthRequestContext) async throws -> Response {
        let scope = request.uri.queryParameters.get("scope") ?? "global"
        guard ["global", "local", "others"].contains(scope) else {
            throw AuthError.validation("Unsupported logout scope \"\(scope.prefix(40))\": use global, local or others")
        }
        let auth = try await service.authenticateUser(request)
        let audit = AuditEntry(
            action: .logout, actorID: auth.user.id, actorUsername: auth.user.email, traits: ["scope": .string(scope)],
            ipAddress: context.clientIP, createdAt: service.clock.now())
        switch scope {
        case "local": try await service.store.endSessions(userID: auth.user.id, except: nil, only: auth.session.id, audit: audit)
        case "others": try await service.store.endSessions(userID: auth.user.id, except: auth.session.id, only: nil, audit: audit)
        default: try await service.store.endSessions(userID: auth.user.id, except: nil, only: nil, audit: audit)
        }
        return Response(status: .noContent)
    }
}
