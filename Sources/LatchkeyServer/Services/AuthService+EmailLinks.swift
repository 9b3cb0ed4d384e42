import Foundation

/// Email links: sign-up confirmation, password recovery and email change, and their
/// verification.
extension AuthService {
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

    /// Creates a link token of `kind` for `user`, stores its hash and mails the link to
    /// `address`. The caller has applied the per-address email rate limit.
    func sendLink(_ type: VerificationType, to user: UserRecord, address: String, redirectTo: String?, ipAddress: String) async throws {
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
        var components = URLComponents(string: externalURL + "/verify")!
        components.queryItems = [
            URLQueryItem(name: "token", value: token), URLQueryItem(name: "type", value: type.rawValue),
            URLQueryItem(name: "redirect_to", value: allowedRedirect(redirectTo)),
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

    /// Verifies a link token and signs the user in: confirms the email, starts a recovery
    /// session, or applies an email change. Expired or unknown tokens are 403 `otp_expired`.
    func verify(_ type: VerificationType, token: String, ipAddress: String) async throws -> SessionResponse {
        try limit("verify:\(ipAddress)", limits.verificationsPerIP)
        let now = clock.now()
        guard let (record, user) = try await store.consumeOneTimeToken(hash: OpaqueTokens.hash(token), kinds: [type.kind]) else {
            throw AuthError.otpExpired
        }
        let ttl = type == .recovery ? configuration.recoveryTokenTTL : configuration.confirmationTokenTTL
        guard now.timeIntervalSince(record.createdAt) < ttl else { throw AuthError.otpExpired }
        var updated = user
        updated.updatedAt = now
        switch type {
        case .signup:
            guard record.relatesTo == user.email else { throw AuthError.otpExpired }
            if updated.emailConfirmedAt == nil { updated.emailConfirmedAt = now }
        case .recovery:
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
        return try await startSession(for: updated, method: type == .recovery ? "recovery" : "otp", ipAddress: ipAddress)
    }

    /// `redirect_to` if the operator allows it, otherwise the site URL (see ``RedirectPolicy``).
    func allowedRedirect(_ candidate: String?) -> String {
        RedirectPolicy(siteURL: siteURL, additionalURLs: configuration.additionalRedirectURLs).resolve(candidate)
    }
}
