import Foundation

/// Request rate limits. On PostgreSQL they are counted in the database, so every instance on it
/// shares one count per key; on SQLite (one instance), in the server process.
public struct RateLimitConfiguration: Sendable, Equatable {
    /// A number of events allowed in a sliding window.
    public struct Limit: Sendable, Equatable {
        public var count: Int
        public var window: TimeInterval
        public init(count: Int, per window: TimeInterval) {
            self.count = count
            self.window = window
        }
    }

    /// Whether limits are enforced at all (off only for benchmarks).
    public var enabled: Bool = true
    /// Failed password attempts per account: 10 per 5 minutes.
    public var failedPasswordAttemptsPerAccount = Limit(count: 10, per: 300)
    /// Wrong emailed codes per address: 10 per 5 minutes, then every code for the address is
    /// refused until the window passes (a six-digit code cannot be guessed in time).
    public var failedCodeAttemptsPerAddress = Limit(count: 10, per: 300)
    /// Sign-in and sign-up requests per client IP: 100 per 5 minutes.
    public var signInsPerIP = Limit(count: 100, per: 300)
    /// Emails of one kind (confirmation, recovery, email change, reauthentication) per address: 5
    /// per hour, at most one a minute.
    public var emailsPerAddress = Limit(count: 5, per: 3600)
    /// Seconds between two emails to the same address.
    public var emailInterval: TimeInterval = 60
    /// SMS messages sent per hour, all numbers together: 30, GoTrue's `GOTRUE_RATE_LIMIT_SMS_SENT`.
    public var smsPerHour = Limit(count: 30, per: 3600)
    /// Refreshes per session: 150 per 5 minutes.
    public var refreshesPerSession = Limit(count: 150, per: 300)
    /// Verification attempts (`/verify`) per client IP: 30 per 5 minutes.
    public var verificationsPerIP = Limit(count: 30, per: 300)
    /// MFA challenges and verifications (`/factors/{id}/challenge`, `/factors/{id}/verify`) per
    /// client IP: 15 per minute, GoTrue's `GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY`.
    public var mfaRequestsPerIP = Limit(count: 15, per: 60)
    /// Wrong TOTP codes per factor: 5 per 5 minutes, then every code for the factor is refused
    /// until the window passes.
    public var failedMFACodesPerFactor = Limit(count: 5, per: 300)
    /// Passkey sign-ins started (`/passkeys/authentication/options`) per client IP: 30 per 5
    /// minutes, GoTrue's `GOTRUE_RATE_LIMIT_PASSKEY`.
    public var passkeySignInsPerIP = Limit(count: 30, per: 300)
    /// OAuth clients registering themselves per IP (GoTrue's
    /// `GOTRUE_RATE_LIMIT_OAUTH_DYNAMIC_CLIENT_REGISTER`, 10 per 5 minutes).
    public var oauthClientRegistrationsPerIP = Limit(count: 10, per: 300)
    /// OAuth authorization requests (`GET /oauth/authorize`) per client IP: 60 per 5 minutes
    /// (Latchkey's; GoTrue has no limit there). Each request anyone can send stores an
    /// authorization until it expires.
    public var oauthAuthorizationsPerIP = Limit(count: 60, per: 300)
    /// New email addresses and phone numbers a user asks for (`PUT /user`): 10 per hour. A
    /// taken one counts too, so the `email_exists` and `phone_exists` answers cannot be used to
    /// probe which addresses and numbers have accounts.
    public var addressChangesPerUser = Limit(count: 10, per: 3600)

    public init() {}

    /// The defaults above.
    public static let `default` = RateLimitConfiguration()

    /// No limits (benchmarks only).
    public static var disabled: RateLimitConfiguration {
        var configuration = RateLimitConfiguration()
        configuration.enabled = false
        return configuration
    }
}
