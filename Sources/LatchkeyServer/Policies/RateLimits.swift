import Foundation

/// Every rate limit the server enforces, each under its own key, answering GoTrue's 429s.
struct RateLimits: Sendable {
    let limiter: RateLimiter
    let limits: RateLimitConfiguration

    /// Counts a sign-in or sign-up from `ipAddress`.
    func admitSignIn(from ipAddress: String) throws(AuthError) {
        try admit("signin-ip:\(ipAddress)", limits.signInsPerIP)
    }

    /// Counts a `/verify` attempt from `ipAddress`.
    func admitVerification(from ipAddress: String) throws(AuthError) {
        try admit("verify:\(ipAddress)", limits.verificationsPerIP)
    }

    /// Counts an MFA challenge or verification from `ipAddress`.
    func admitMFARequest(from ipAddress: String) throws(AuthError) {
        try admit("mfa-ip:\(ipAddress)", limits.mfaRequestsPerIP)
    }

    /// Refuses a code for `factorID` after too many wrong ones, without counting this attempt.
    func checkMFACodeAttempts(for factorID: UUID) throws(AuthError) {
        if let retryAfter = limiter.check("failed-mfa:\(factorID)", limit: limits.failedMFACodesPerFactor) {
            throw AuthError.rateLimited(retryAfter: retryAfter)
        }
    }

    func recordFailedMFACode(for factorID: UUID) {
        limiter.record("failed-mfa:\(factorID)", limit: limits.failedMFACodesPerFactor)
    }

    /// Counts a refresh of `sessionID`.
    func admitRefresh(of sessionID: UUID) throws(AuthError) {
        try admit("refresh:\(sessionID)", limits.refreshesPerSession)
    }

    /// Counts an email for `purpose` to `address`: 429 `over_email_send_rate_limit` past the
    /// limit or sooner than the minimum interval after the previous one of the same kind (a
    /// recovery mail right after a confirmation is fine, as in GoTrue).
    ///
    /// Callers count the request whether or not the address has an account, so the answer never
    /// tells the two apart.
    ///
    /// - Returns: the slot taken, for ``releaseEmail(_:)`` when no email goes out after all.
    @discardableResult
    func admitEmail(to address: String, for purpose: EmailPurpose) throws(AuthError) -> EmailSlot {
        let key = "email:\(purpose.kind.rawValue):\(address)"
        let now = limiter.now()
        if let retryAfter = limiter.consume(key, limit: limits.emailsPerAddress, minimumInterval: limits.emailInterval, at: now) {
            throw AuthError.emailRateLimited(retryAfter: retryAfter)
        }
        return EmailSlot(key: key, takenAt: now)
    }

    /// Gives back a slot ``admitEmail(to:for:)`` took for an email that could not be delivered,
    /// so that the address can ask again at once rather than wait out the interval.
    func releaseEmail(_ slot: EmailSlot) {
        limiter.unrecord(slot.key, at: slot.takenAt)
    }

    /// One email counted against an address's limit.
    struct EmailSlot: Sendable {
        fileprivate let key: String
        fileprivate let takenAt: Date
    }

    /// Refuses a code for `address` after too many wrong ones, without counting this attempt.
    func checkCodeAttempts(for address: String) throws(AuthError) {
        if let retryAfter = limiter.check("failed-code:\(address)", limit: limits.failedCodeAttemptsPerAddress) {
            throw AuthError.rateLimited(retryAfter: retryAfter)
        }
    }

    func recordFailedCode(for address: String) {
        limiter.record("failed-code:\(address)", limit: limits.failedCodeAttemptsPerAddress)
    }

    /// Refuses a password attempt on an account with too many recent failures, without
    /// counting it: checked before bcrypt runs, so a locked account costs an attacker's
    /// requests no CPU.
    func checkPasswordAttempts(for email: String) throws(AuthError) {
        if let retryAfter = limiter.check(failedPasswordKey(email), limit: limits.failedPasswordAttemptsPerAccount) {
            throw AuthError.rateLimited(retryAfter: retryAfter)
        }
    }

    func recordFailedPassword(for email: String) {
        limiter.record(failedPasswordKey(email), limit: limits.failedPasswordAttemptsPerAccount)
    }

    func forgetFailedPasswords(for email: String) {
        limiter.reset(failedPasswordKey(email))
    }

    private func failedPasswordKey(_ email: String) -> String { "failed-password:\(email)" }

    private func admit(_ key: String, _ limit: RateLimitConfiguration.Limit) throws(AuthError) {
        if let retryAfter = limiter.consume(key, limit: limit) { throw AuthError.rateLimited(retryAfter: retryAfter) }
    }
}
