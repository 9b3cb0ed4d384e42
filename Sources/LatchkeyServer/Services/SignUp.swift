import Foundation
import Logging

/// `POST /signup`: creates an account with an email address and a password.
///
/// With autoconfirm the account is signed in at once; otherwise a confirmation link is mailed
/// and the answer is the unconfirmed user. Signing up again with an unconfirmed address sends
/// the confirmation again and changes nothing else.
struct SignUp: Sendable {
    /// A session (autoconfirm) or the user waiting for confirmation.
    enum Outcome: Encodable, Sendable {
        case session(SessionResponse)
        case user(UserResponse)

        func encode(to encoder: any Encoder) throws {
            switch self {
            case .session(let session): try session.encode(to: encoder)
            case .user(let user): try user.encode(to: encoder)
            }
        }
    }

    /// Whether sign-ups are open, and whether they need confirming.
    struct Settings: Sendable {
        var disabled: Bool
        var autoconfirm: Bool
    }

    private let store: any AuthStore
    private let clock: any ServerClock
    private let passwords: PasswordPolicy
    private let limits: RateLimits
    private let sessions: SessionIssuer
    private let emailLinks: EmailLinks
    private let settings: Settings
    private let logger: Logger

    init(
        store: any AuthStore, clock: any ServerClock, passwords: PasswordPolicy, limits: RateLimits, sessions: SessionIssuer,
        emailLinks: EmailLinks, settings: Settings, logger: Logger
    ) {
        self.store = store
        self.clock = clock
        self.passwords = passwords
        self.limits = limits
        self.sessions = sessions
        self.emailLinks = emailLinks
        self.settings = settings
        self.logger = logger
    }

    /// Signs `body`'s address up; `queryRedirect` is the request's `redirect_to` parameter.
    func signUp(_ body: SignUpBody, queryRedirect: String?, ipAddress: String) async throws -> Outcome {
        guard !settings.disabled else { throw AuthError.signupDisabled }
        try limits.admitSignIn(from: ipAddress)
        let email = try InputRules.normalizedEmail(body.email)
        guard let password = body.password else { throw AuthError.validation("Signup requires a valid password") }
        try passwords.check(password)
        let redirect = body.email_redirect_to ?? body.redirect_to ?? queryRedirect

        if let existing = try await store.user(email: email) {
            guard existing.emailConfirmedAt == nil else { throw AuthError.userAlreadyExists }
            // An unconfirmed sign-up repeated: send the confirmation again, change nothing else.
            try limits.admitEmail(to: email)
            try await store.appendAudit(
                AuditEntry(action: .userRepeatedSignUp, actorID: existing.id, actorUsername: email, ipAddress: ipAddress, createdAt: clock.now()))
            return try await confirm(existing, redirect: redirect, ipAddress: ipAddress)
        }

        let now = clock.now()
        var user = UserRecord(email: email, passwordHash: try await passwords.hash(password), userMetadata: body.data ?? [:], createdAt: now, updatedAt: now)
        if settings.autoconfirm { user.emailConfirmedAt = now }
        do {
            try await store.insertUser(
                user, audit: AuditEntry(action: .userSignedUp, actorID: user.id, actorUsername: email,
                                        traits: ["provider": .string("email")], ipAddress: ipAddress, createdAt: now))
        } catch StoreError.duplicateEmail {
            throw AuthError.userAlreadyExists
        }
        logger.info("user signed up", metadata: ["user_id": "\(user.id)", "email_hash": "\(EmailHash.of(email))"])
        if settings.autoconfirm {
            return .session(try await sessions.start(for: user, method: "password", ipAddress: ipAddress))
        }
        try limits.admitEmail(to: email)
        return try await confirm(user, redirect: redirect, ipAddress: ipAddress)
    }

    /// Mails `user` a confirmation link and answers the user as stored afterwards.
    private func confirm(_ user: UserRecord, redirect: String?, ipAddress: String) async throws -> Outcome {
        try await emailLinks.send(.signup, to: user, address: user.email, redirectTo: redirect, ipAddress: ipAddress)
        return .user(UserResponse(try await store.user(id: user.id) ?? user))
    }
}
