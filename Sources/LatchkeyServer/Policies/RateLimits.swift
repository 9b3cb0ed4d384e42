import Foundation

/// Every rate limit the server enforces, each under its own key, answering GoTrue's 429s.
///
/// The events are counted by a ``RateLimitCounter``: in the database on PostgreSQL, so that
/// every instance on it shares the same counts, in this process on SQLite. With
/// ``RateLimitConfiguration/enabled`` off nothing is counted and nothing refused. A counter's
/// failure (the database is down) is thrown as the store's error.
struct RateLimits: Sendable {
    let counter: any RateLimitCounter
    let clock: any ServerClock
    let limits: RateLimitConfiguration

    /// Counts a sign-in or sign-up from `ipAddress`.
    func admitSignIn(from ipAddress: String) async throws {
        try await admit("signin-ip:\(ipAddress)", limits.signInsPerIP)
    }

    /// Counts a `/verify` attempt from `ipAddress`.
    func admitVerification(from ipAddress: String) async throws {
        try await admit("verify:\(ipAddress)", limits.verificationsPerIP)
    }

    /// Counts a passkey sign-in started from `ipAddress` (GoTrue's `GOTRUE_RATE_LIMIT_PASSKEY`).
    func admitPasskeySignIn(from ipAddress: String) async throws {
        try await admit("passkey-ip:\(ipAddress)", limits.passkeySignInsPerIP)
    }

    /// Counts an OAuth client's registration of itself from `ipAddress`.
    func admitOAuthClientRegistration(from ipAddress: String) async throws {
        try await admit("oauth-register-ip:\(ipAddress)", limits.oauthClientRegistrationsPerIP)
    }

    /// Counts an OAuth authorization request (`GET /oauth/authorize`) from `ipAddress`.
    func admitOAuthAuthorization(from ipAddress: String) async throws {
        try await admit("oauth-authorize-ip:\(ipAddress)", limits.oauthAuthorizationsPerIP)
    }

    /// Counts a new email address or phone number asked for by `userID`, taken or not.
    func admitAddressChange(by userID: UUID) async throws {
        try await admit("address-change:\(userID)", limits.addressChangesPerUser)
    }

    /// Counts an MFA challenge or verification from `ipAddress`.
    func admitMFARequest(from ipAddress: String) async throws {
        try await admit("mfa-ip:\(ipAddress)", limits.mfaRequestsPerIP)
    }

    /// Refuses a code for `factorID` after too many wrong ones, without counting this attempt.
    func checkMFACodeAttempts(for factorID: UUID) async throws {
        try await check("failed-mfa:\(factorID)", limits.failedMFACodesPerFactor)
    }

    func recordFailedMFACode(for factorID: UUID) async throws {
        try await record("failed-mfa:\(factorID)", limits.failedMFACodesPerFactor)
    }

    /// A refresh for the store to count against its session's limit, inside the rotation's
    /// transaction; `nil` when limits are off.
    func refreshAdmission() -> RefreshAdmission? {
        guard limits.enabled else { return nil }
        return RefreshAdmission(counter: counter, limit: limits.refreshesPerSession, date: clock.now())
    }

    /// Counts an email for `purpose` to `address`: 429 `over_email_send_rate_limit` past the
    /// limit or sooner than the minimum interval after the previous one of the same kind (a
    /// recovery mail right after a confirmation is fine, as in GoTrue).
    ///
    /// Callers count the request whether or not the address has an account, so the answer never
    /// tells the two apart.
    ///
    /// - Returns: the slot taken, for ``release(_:)`` when no email goes out after all.
    @discardableResult
    func admitEmail(to address: String, for purpose: EmailPurpose) async throws -> MessageSlot {
        try await takeSlot(
            "email:\(purpose.kind.rawValue):\(address)", limits.emailsPerAddress, minimumInterval: limits.emailInterval,
            refusal: AuthError.emailRateLimited(retryAfter:))
    }

    /// Gives back a slot ``admitEmail(to:for:)`` or ``admitSMS()`` took for a message that could
    /// not be delivered, so that the address or number can ask again at once rather than wait out the interval. Best effort:
    /// when the counter cannot be reached the slot stays taken until its window passes.
    func release(_ slot: MessageSlot) async {
        guard limits.enabled else { return }
        try? await counter.unrecord(slot.key, at: slot.takenAt)
    }

    /// GoTrue's minimum interval between two codes to one number, for a number that gets no
    /// code (no account, and none to create; or a banned one): 429 `over_sms_send_rate_limit`
    /// for a second request within `interval`, as a number with an account gets, so that the
    /// answer does not tell the two apart. Counted whether or not rate limits are on, as the
    /// account's own interval is.
    func admitUnsentCode(to phone: String, interval: TimeInterval) async throws {
        guard interval > 0 else { return }
        if let retryAfter = try await counter.consume(
            "sms-unsent:\(phone)", limit: .init(count: 1, per: interval), minimumInterval: interval, at: clock.now())
        {
            throw AuthError.smsTooSoon(retryAfter: retryAfter)
        }
    }

    /// Counts an SMS the server is about to send, against the limit of all numbers together
    /// (GoTrue's `GOTRUE_RATE_LIMIT_SMS_SENT`): 429 `over_sms_send_rate_limit` past it.
    ///
    /// - Returns: the slot taken, for ``release(_:)`` when no message goes out after all.
    func admitSMS() async throws -> MessageSlot {
        try await takeSlot("sms", limits.smsPerHour, minimumInterval: 0, refusal: AuthError.smsRateLimited(retryAfter:))
    }

    /// One email (or SMS) counted against a limit.
    struct MessageSlot: Sendable {
        fileprivate let key: String
        fileprivate let takenAt: Date
    }

    /// Counts a message under `key` (nothing when limits are off); past `limit`, or sooner than
    /// `minimumInterval` after the previous one, throws `refusal` with the seconds to wait.
    private func takeSlot(
        _ key: String, _ limit: RateLimitConfiguration.Limit, minimumInterval: TimeInterval, refusal: (Int) -> AuthError
    ) async throws -> MessageSlot {
        let now = clock.now()
        if limits.enabled, let retryAfter = try await counter.consume(key, limit: limit, minimumInterval: minimumInterval, at: now) {
            throw refusal(retryAfter)
        }
        return MessageSlot(key: key, takenAt: now)
    }

    /// Refuses a code for `address` after too many wrong ones, without counting this attempt.
    func checkCodeAttempts(for address: String) async throws {
        try await check("failed-code:\(address)", limits.failedCodeAttemptsPerAddress)
    }

    func recordFailedCode(for address: String) async throws {
        try await record("failed-code:\(address)", limits.failedCodeAttemptsPerAddress)
    }

    /// Refuses a password attempt on an account with too many recent failures, without
    /// counting it: checked before bcrypt runs, so a locked account costs an attacker's
    /// requests no CPU.
    func checkPasswordAttempts(for email: String) async throws {
        try await check(failedPasswordKey(email), limits.failedPasswordAttemptsPerAccount)
    }

    func recordFailedPassword(for email: String) async throws {
        try await record(failedPasswordKey(email), limits.failedPasswordAttemptsPerAccount)
    }

    func forgetFailedPasswords(for email: String) async throws {
        guard limits.enabled else { return }
        try await counter.reset(failedPasswordKey(email))
    }

    private func failedPasswordKey(_ email: String) -> String { "failed-password:\(email)" }

    private func admit(_ key: String, _ limit: RateLimitConfiguration.Limit) async throws {
        guard limits.enabled else { return }
        if let retryAfter = try await counter.consume(key, limit: limit, minimumInterval: 0, at: clock.now()) {
            throw AuthError.rateLimited(retryAfter: retryAfter)
        }
    }

    private func check(_ key: String, _ limit: RateLimitConfiguration.Limit) async throws {
        guard limits.enabled else { return }
        if let retryAfter = try await counter.check(key, limit: limit, at: clock.now()) {
            throw AuthError.rateLimited(retryAfter: retryAfter)
        }
    }

    private func record(_ key: String, _ limit: RateLimitConfiguration.Limit) async throws {
        guard limits.enabled else { return }
        try await counter.record(key, limit: limit, at: clock.now())
    }
}
