import Foundation

/// Email links: sign-up confirmation, password recovery and email change — sending them,
/// sending them again, and following them.
struct EmailLinks: Sendable {
    /// The `type` values of `/verify` and what they consume.
    enum VerificationType: String, Sendable {
        case signup
        case recovery
        case emailChange = "email_change"

        var kind: OneTimeToken.Kind {
            switch self {
            case .signup: .confirmation
            case .recovery: .recovery
            case .emailChange: .emailChange
            }
        }

        init(parsing raw: String?) throws(AuthError) {
            guard let raw, let value = VerificationType(rawValue: raw) else {
                throw AuthError.validation("Verify requires a type of signup, recovery or email_change")
            }
            self = value
        }
    }

    /// How long links stay valid, and where they point.
    struct Settings: Sendable {
        var confirmationTokenTTL: TimeInterval
        var recoveryTokenTTL: TimeInterval
        /// Where `/verify` links point (the server itself).
        var externalURL: String
        /// Where users land after following a link.
        var redirects: RedirectPolicy
    }

    private let store: any AuthStore
    private let clock: any ServerClock
    private let mailer: any Mailer
    private let limits: RateLimits
    private let sessions: SessionIssuer
    private let settings: Settings

    init(store: any AuthStore, clock: any ServerClock, mailer: any Mailer, limits: RateLimits, sessions: SessionIssuer, settings: Settings) {
        self.store = store
        self.clock = clock
        self.mailer = mailer
        self.limits = limits
        self.sessions = sessions
        self.settings = settings
    }

    // MARK: Sending

    /// Creates a link token of `type` for `user`, stores its hash and mails the link to
    /// `address`. The caller has applied the per-address email rate limit.
    func send(_ type: VerificationType, to user: UserRecord, address: String, redirectTo: String?, ipAddress: String) async throws {
        let now = clock.now()
        let token = OpaqueTokens.random()
        var updated = user
        let action: AuditEntry.Action
        switch type {
        case .signup:
            updated.confirmationSentAt = now
            action = .userConfirmationRequested
        case .recovery:
            updated.recoverySentAt = now
            action = .userRecoveryRequested
        case .emailChange:
            updated.emailChangeSentAt = now
            updated.newEmail = address
            action = .userModified
        }
        updated.updatedAt = now
        try await store.saveOneTimeToken(
            OneTimeToken(userID: user.id, kind: type.kind, tokenHash: OpaqueTokens.hash(token), relatesTo: address, createdAt: now),
            updatingUser: updated,
            audit: AuditEntry(action: action, actorID: user.id, actorUsername: user.email, ipAddress: ipAddress, createdAt: now))
        var components = URLComponents(string: settings.externalURL + "/verify")!
        components.queryItems = [
            URLQueryItem(name: "token", value: token), URLQueryItem(name: "type", value: type.rawValue),
            URLQueryItem(name: "redirect_to", value: settings.redirects.resolve(redirectTo)),
        ]
        let link = components.url!.absoluteString
        try await mailer.send(Self.message(type, to: address, link: link))
    }

    static func message(_ type: VerificationType, to address: String, link: String) -> MailMessage {
        switch type {
        case .signup:
            MailMessage(to: address, subject: "Confirm your signup", body: "Follow this link to confirm your email address:\n\n\(link)\n\nIf you did not sign up, ignore this message.\n")
        case .recovery:
            MailMessage(to: address, subject: "Reset your password", body: "Follow this link to reset the password for your account:\n\n\(link)\n\nIf you did not ask for this, ignore this message; your password is unchanged.\n")
        case .emailChange:
            MailMessage(to: address, subject: "Confirm email change", body: "Follow this link to confirm this as the new email address of your account:\n\n\(link)\n")
        }
    }

    /// `POST /recover`: mails a recovery link when the address has an account that is not
    /// banned. The answer is the same either way, so it cannot be used to find accounts.
    func recover(_ body: EmailBody, queryRedirect: String?, ipAddress: String) async throws {
        let email = try InputRules.normalizedEmail(body.email)
        try limits.admitEmail(to: email)
        if let user = try await store.user(email: email), !user.isBanned(at: clock.now()) {
            try await send(.recovery, to: user, address: email, redirectTo: body.redirect_to ?? queryRedirect, ipAddress: ipAddress)
        }
    }

    /// `POST /resend`: sends the sign-up confirmation (or the pending email change) again, when
    /// there is one to send; the answer is the same either way.
    func resend(_ body: EmailBody, ipAddress: String) async throws {
        let type = body.type ?? "signup"
        guard type == "signup" || type == "email_change" else { throw AuthError.validation("Resend supports the types signup and email_change") }
        let email = try InputRules.normalizedEmail(body.email)
        try limits.admitEmail(to: email)
        if type == "signup", let user = try await store.user(email: email), user.emailConfirmedAt == nil {
            try await send(.signup, to: user, address: email, redirectTo: body.redirect_to, ipAddress: ipAddress)
        } else if type == "email_change", let user = try await store.user(email: email), let pending = user.newEmail {
            try await send(.emailChange, to: user, address: pending, redirectTo: body.redirect_to, ipAddress: ipAddress)
        }
    }

    // MARK: Following

    /// `POST /verify`: verifies a link token and signs the user in.
    func verify(_ body: VerifyBody, ipAddress: String) async throws -> SessionResponse {
        let type = try VerificationType(parsing: body.type)
        guard let token = body.token_hash ?? body.token, !token.isEmpty else { throw AuthError.validation("Verify requires a token or a token_hash") }
        return try await verify(type, token: token, ipAddress: ipAddress)
    }

    /// `GET /verify`, the link a user clicks: verifies, and returns where to redirect — the app,
    /// with the session in the URL fragment (never the query, so it is not sent to servers or
    /// kept in their logs), or with GoTrue's `error`, `error_code` and `error_description` when
    /// the link is no good.
    func follow(type rawType: String?, token: String?, redirectTo: String?, ipAddress: String) async throws -> String {
        let redirect = settings.redirects.resolve(redirectTo)
        var fragment: String
        do {
            let type = try VerificationType(parsing: rawType)
            guard let token, !token.isEmpty else { throw AuthError.otpExpired }
            let session = try await verify(type, token: token, ipAddress: ipAddress)
            fragment = session.fragment(type: type.rawValue)
        } catch let error as AuthError {
            var components = URLComponents()
            components.queryItems = [
                URLQueryItem(name: "error", value: error.isRateLimit ? "over_request_rate_limit" : "access_denied"),
                URLQueryItem(name: "error_code", value: error.code),
                URLQueryItem(name: "error_description", value: error.message),
            ]
            fragment = components.percentEncodedQuery ?? ""
        }
        let base = redirect.split(separator: "#", maxSplits: 1).first.map(String.init) ?? redirect
        return base + "#" + fragment
    }

    /// Verifies a link token and signs the user in: confirms the email, starts a recovery
    /// session, or applies an email change. Expired or unknown tokens are 403 `otp_expired`.
    private func verify(_ type: VerificationType, token: String, ipAddress: String) async throws -> SessionResponse {
        try limits.admitVerification(from: ipAddress)
        let now = clock.now()
        guard let (record, user) = try await store.consumeOneTimeToken(hash: OpaqueTokens.hash(token), kinds: [type.kind]) else {
            throw AuthError.otpExpired
        }
        let ttl = type == .recovery ? settings.recoveryTokenTTL : settings.confirmationTokenTTL
        guard now.timeIntervalSince(record.createdAt) < ttl else { throw AuthError.otpExpired }
        var updated = user
        updated.updatedAt = now
        switch type {
        case .signup, .recovery:
            guard record.relatesTo == user.email else { throw AuthError.otpExpired }
            // Following a recovery link proves the address as well.
            if updated.emailConfirmedAt == nil { updated.emailConfirmedAt = now }
        case .emailChange:
            guard updated.newEmail == record.relatesTo else { throw AuthError.otpExpired }
            if let owner = try await store.user(email: record.relatesTo), owner.id != user.id { throw AuthError.emailExists }
            updated.email = record.relatesTo
            updated.newEmail = nil
            updated.emailChangeSentAt = nil
            updated.emailConfirmedAt = now
        }
        if user.isBanned(at: now) { throw AuthError.userBanned }
        try await store.updateUser(
            updated, audit: AuditEntry(action: .userModified, actorID: user.id, actorUsername: updated.email,
                                       traits: ["verified": .string(type.rawValue)], ipAddress: ipAddress, createdAt: now))
        return try await sessions.start(for: updated, method: type == .recovery ? "recovery" : "otp", ipAddress: ipAddress)
    }
}
