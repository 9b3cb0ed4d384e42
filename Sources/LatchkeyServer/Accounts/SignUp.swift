import Foundation
import LatchkeyWire
import Logging

/// `POST /signup`: creates an account with an email address and a password, or an anonymous one.
///
/// With autoconfirm the account is signed in at once; otherwise a confirmation link and code
/// are mailed and the answer is the unconfirmed user. Signing up again with an unconfirmed
/// address sends the confirmation again and changes nothing else; with a confirmed address it
/// sends nothing and answers a user that looks new (GoTrue's obfuscated user), so the answer
/// does not tell whether the address has an account.
struct SignUp: ServiceDependent {
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

    /// Whether sign-ups are open, whether they need confirming, and whether anonymous ones are allowed.
    struct Settings: Sendable {
        var disabled: Bool
        var autoconfirm: Bool
        var anonymousUsers: Bool = false
        /// Off: an email sign-up is 400 `email_provider_disabled` (GoTrue's `GOTRUE_EXTERNAL_EMAIL_ENABLED`).
        var emailEnabled: Bool = true
    }

    let shared: ServiceDependencies
    let emailLinks: EmailLinks
    let settings: Settings
    /// Sign-up with a phone number; `nil` when phone sign-in is off.
    var phone: PhoneSignUp? = nil

    /// Signs `body`'s address up; `queryRedirect` is the request's `redirect_to` parameter.
    func signUp(_ body: SignUpBody, queryRedirect: String?, ipAddress: String) async throws -> Outcome {
        guard !settings.disabled else { throw AuthError.signupDisabled }
        if let number = body.phone, !number.isEmpty {
            ResponsePadding.answering(by: .sms)
            guard (body.email ?? "").isEmpty else {
                throw AuthError.validation("Only an email address or phone number should be provided on signup.")
            }
            guard let phone else { throw AuthError.phoneProviderDisabled("Phone signups are disabled") }
            return try await phone.signUp(body, ipAddress: ipAddress)
        }
        if (body.email ?? "").isEmpty {
            return .session(try await signUpAnonymously(body, ipAddress: ipAddress))
        }
        guard settings.emailEnabled else { throw AuthError.emailSignupsDisabled }
        try await limits.admitSignIn(from: ipAddress)
        let email = try InputRules.normalizedEmail(body.email)
        guard let password = body.password else { throw AuthError.validation("Signup requires a valid password") }
        try await passwords.check(password)
        let pkce = try PKCEChallenge(challenge: body.code_challenge, method: body.code_challenge_method)
        let redirect = body.email_redirect_to ?? body.redirect_to ?? queryRedirect

        if let existing = try await store.user(email: email) {
            let slot = settings.autoconfirm ? nil : try await limits.admitEmail(to: email, for: .signup)
            try await store.appendAudit(
                AuditEntry(action: .userRepeatedSignUp, actorID: existing.id, actorUsername: email, ipAddress: ipAddress, createdAt: clock.now()))
            if existing.emailConfirmedAt != nil {
                // With autoconfirm a new sign-up would be signed in, so an existing one cannot
                // pass for new: GoTrue's 422. Otherwise the answer looks like a new sign-up's.
                guard !settings.autoconfirm else { throw AuthError.userAlreadyExists }
                _ = try await passwords.hash(checked: password)  // the same work as a new sign-up
                return .user(Self.lookalike(email: email, data: body.data ?? [:], at: clock.now()))
            }
            // An unconfirmed sign-up repeated: send the confirmation again, change nothing else.
            return try await confirm(existing, redirect: redirect, pkce: pkce, ipAddress: ipAddress, slot: slot)
        }

        let now = clock.now()
        var user = UserRecord(
            email: email, passwordHash: try await passwords.hash(checked: password), userMetadata: body.data ?? [:], createdAt: now, updatedAt: now)
        if settings.autoconfirm { user.emailConfirmedAt = now }
        // Before the email limit is counted: a refused sign-up sends nothing.
        if let beforeUserCreated { try await beforeUserCreated.check(user) }
        let slot = settings.autoconfirm ? nil : try await limits.admitEmail(to: email, for: .signup)
        let audit = AuditEntry(
            action: .userSignedUp, actorID: user.id, actorUsername: email, traits: ["provider": .string("email")], ipAddress: ipAddress,
            createdAt: now)
        // The account is stored with its session or its confirmation link in one transaction:
        // a failure leaves no account behind that could neither sign in nor be confirmed.
        do {
            if settings.autoconfirm {
                let session = try await sessions.presign(sessions.prepare(for: user, method: "password", ipAddress: ipAddress))
                try await store.insertUser(session.user, audit: audit, start: .session(session))
                logger.info("user signed up", metadata: ["user_id": "\(user.id)", "email_hash": "\(EmailHash.of(email))"])
                try await afterUserCreated?.notifySignedUp(session.user)
                return .session(try await sessions.started(session))
            }
            // Issued with the account: its confirmation proves the password (see EmailVerification).
            let link = emailLinks.prepare(
                .signup, for: user, address: email, redirectTo: redirect, pkce: pkce, ipAddress: ipAddress, issuedAt: user.createdAt)
            do {
                try await store.insertUser(link.user, audit: audit, start: .confirmation(link.token, flow: link.flow, audit: link.audit))
            } catch {
                if let slot { await limits.release(slot) }  // nothing was mailed
                throw error
            }
            logger.info("user signed up", metadata: ["user_id": "\(user.id)", "email_hash": "\(EmailHash.of(email))"])
            try await emailLinks.deliver(link, slot: slot)
            try await afterUserCreated?.notifySignedUp(link.user)
            return .user(UserResponse(link.user))
        } catch StoreError.duplicateEmail {
            throw AuthError.userAlreadyExists
        }
    }

    /// `POST /signup` with neither email nor phone: a user with no address and no password,
    /// signed in at once (`is_anonymous` in its token), who becomes permanent by adding an
    /// email address (and then a password) with `PUT /user`.
    private func signUpAnonymously(_ body: SignUpBody, ipAddress: String) async throws -> SessionResponse {
        guard settings.anonymousUsers else { throw AuthError.anonymousProviderDisabled }
        try await limits.admitSignIn(from: ipAddress)
        let now = clock.now()
        let user = UserRecord(
            email: "", passwordHash: nil, isAnonymous: true, appMetadata: [:], userMetadata: body.data ?? [:], createdAt: now, updatedAt: now)
        if let beforeUserCreated { try await beforeUserCreated.check(user) }
        let session = try await sessions.presign(sessions.prepare(for: user, method: "anonymous", ipAddress: ipAddress))
        try await store.insertUser(
            session.user,
            audit: AuditEntry(
                action: .userSignedUp, actorID: user.id, actorUsername: "", traits: ["provider": .string("anonymous")], ipAddress: ipAddress,
                createdAt: now),
            start: .session(session))
        logger.info("anonymous user signed up", metadata: ["user_id": "\(user.id)"])
        try await afterUserCreated?.notify(session.user)
        return try await sessions.started(session)
    }

    /// Mails `user` a confirmation link and code and answers the user as stored afterwards.
    private func confirm(
        _ user: UserRecord, redirect: String?, pkce: PKCEChallenge?, ipAddress: String, slot: RateLimits.MessageSlot?
    ) async throws -> Outcome {
        try await emailLinks.send(.signup, to: user, address: user.email, redirectTo: redirect, pkce: pkce, ipAddress: ipAddress, slot: slot)
        return .user(UserResponse(try await store.user(id: user.id) ?? user))
    }

    /// What a new, unconfirmed sign-up of `email` answers — with an id that belongs to nobody —
    /// so that signing up with a taken address cannot be told from signing up with a free one.
    static func lookalike(email: String, data: [String: JSONValue], at now: Date) -> UserResponse {
        var user = UserRecord(email: email, passwordHash: nil, userMetadata: data, createdAt: now, updatedAt: now)
        user.confirmationSentAt = now
        return UserResponse(user)
    }
}
