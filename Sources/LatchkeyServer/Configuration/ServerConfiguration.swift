import Foundation

/// Everything that shapes a Latchkey server, with a named, documented default for each setting.
///
/// `latchkey serve` fills this from its command-line options; embedding apps build one directly:
///
/// ```swift
/// var configuration = ServerConfiguration(dataDirectory: dataDirectory)
/// configuration.port = 0          // any free port
/// configuration.autoconfirm = true
/// let app = try await LatchkeyApplication.build(configuration: configuration)
/// ```
public struct ServerConfiguration: Sendable {
    /// Default listening address: loopback only, so a fresh server is never exposed by accident.
    public static let defaultHost = "127.0.0.1"
    /// Default port (GoTrue's own default).
    public static let defaultPort = 9999
    /// Default access-token lifetime: one hour, as GoTrue.
    public static let defaultAccessTokenTTL: TimeInterval = 3600
    public static let defaultEmailCodeTTL: TimeInterval = 3600
    /// Access-token lifetimes below this are accepted but logged as a warning: Supabase clients
    /// treat a token with under 30 seconds left as expired, so at such lifetimes they refresh
    /// before nearly every request.
    public static let shortAccessTokenTTLWarning: TimeInterval = 60
    /// Default roles whose API keys may use `/admin`, as GoTrue's `GOTRUE_JWT_ADMIN_ROLES`.
    public static let defaultJWTAdminRoles = ["service_role", "supabase_admin"]
    /// Request headers a browser may send cross-origin, as GoTrue allows them, plus `apikey`,
    /// which supabase-js sends on every request (Supabase's gateway allows it).
    public static let defaultCORSAllowedHeaders = [
        "Accept", "Authorization", "Content-Type", "X-Client-IP", "X-Client-Info", "X-JWT-AUD", "x-use-cookie",
        "X-Supabase-Api-Version", "apikey",
    ]
    /// Default window in which a spent refresh token may be presented again without being
    /// treated as stolen: 10 seconds, as GoTrue.
    public static let defaultRefreshReuseInterval: TimeInterval = 10
    /// Default minimum password length.
    public static let defaultMinimumPasswordLength = 8
    /// Default bcrypt cost.
    public static let defaultBcryptCost = 10
    /// Default most connections one server instance keeps to PostgreSQL. With several
    /// instances, keep instances × pool size below the database's `max_connections`.
    public static let defaultDatabasePoolSize = 10
    /// Default longest wait for a PostgreSQL connection before a request is answered 503.
    public static let defaultDatabaseTimeout: TimeInterval = 5
    /// Default time between two runs of the cleanup task (``cleanupInterval``).
    public static let defaultCleanupInterval: TimeInterval = 300
    /// Default age after which a spent refresh token is deleted: 24 hours, as GoTrue's cleanup.
    public static let defaultRefreshTokenRetention: TimeInterval = 86_400
    /// Default age after which audit entries are deleted: 90 days.
    public static let defaultAuditRetention: TimeInterval = 90 * 86_400
    /// Default seconds a connection may stay idle (between requests, or before a request's head
    /// arrives) and the longest a request may take to arrive whole.
    public static let defaultIdleTimeout: TimeInterval = 60

    /// Default most factors (verified or not) a user may have, as GoTrue's `GOTRUE_MFA_MAX_ENROLLED_FACTORS`.
    public static let defaultMFAMaxEnrolledFactors = 10
    /// Default most verified factors a user may have, as GoTrue's `GOTRUE_MFA_MAX_VERIFIED_FACTORS`.
    public static let defaultMFAMaxVerifiedFactors = 10
    /// Default seconds an MFA challenge can be verified: 300, as GoTrue's `GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION`.
    public static let defaultMFAChallengeExpiry: TimeInterval = 300
    /// Default seconds an enrolled factor may stay unverified before it is deleted: 300, as
    /// GoTrue's `GOTRUE_MFA_FACTOR_EXPIRY_DURATION`.
    public static let defaultMFAFactorExpiry: TimeInterval = 300

    /// Largest request body accepted.
    public static let maximumRequestBodySize = 1 << 20

    /// Interface to listen on.
    public var host: String = defaultHost
    /// Port to listen on; `0` picks a free one (`onServerRunning` of
    /// ``LatchkeyApplication/build(configuration:clock:mailer:store:logger:onServerRunning:)`` reports it).
    public var port: Int = defaultPort
    /// Folder for the SQLite database, the generated JWT secret and the mail outbox.
    /// Created with mode 0700; files inside are 0600.
    public var dataDirectory: URL
    /// Where user and session data live. `nil` means `sqlite://<dataDirectory>/latchkey.sqlite`;
    /// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=require]` selects PostgreSQL
    /// (see ``PostgresAuthStore``), which several instances can share.
    public var databaseURL: String?
    /// PostgreSQL only: the most connections this instance opens (its pool size).
    public var databasePoolSize: Int = defaultDatabasePoolSize
    /// PostgreSQL only: seconds a request waits for a database connection (while the database is
    /// unreachable, or every pooled connection is busy) before it is answered 503.
    public var databaseTimeout: TimeInterval = defaultDatabaseTimeout
    /// Confirm new sign-ups without an email round trip.
    public var autoconfirm: Bool = false
    /// Refuse new sign-ups (`/settings` reports it; admins can still create users).
    public var disableSignup: Bool = false
    /// Where links in emails finally send the user (after `/verify`). `nil` means the server's own URL.
    public var siteURL: String?
    /// The server's public URL, used in the `iss` claim and in links to `/verify`.
    /// `nil` means `http://<host>:<port>`.
    public var externalURL: String?
    /// Further URLs (prefixes) that `redirect_to` may point at besides ``siteURL``.
    public var additionalRedirectURLs: [String] = []
    /// Lifetime of access tokens, in seconds (at least 1). Supabase clients treat a token with
    /// under 30 seconds left as expired, so below about a minute they refresh on nearly every
    /// call; the server logs a warning under ``shortAccessTokenTTLWarning``.
    public var accessTokenTTL: TimeInterval = defaultAccessTokenTTL
    /// Roles whose tokens, signed with the server's key and belonging to no session, may use
    /// `/admin` (GoTrue's JWT admin roles). No user can be given one of these roles.
    public var jwtAdminRoles: [String] = defaultJWTAdminRoles
    /// Origins browsers may call from (CORS). Empty means every origin (`*`), as GoTrue; entries
    /// may hold one `*` wildcard, such as `https://*.example.com`.
    public var corsAllowedOrigins: [String] = []
    /// Request headers allowed cross-origin besides ``defaultCORSAllowedHeaders`` (GoTrue's
    /// `GOTRUE_CORS_ALLOWED_HEADERS`); `*` allows any.
    public var corsAllowedHeaders: [String] = []
    /// Seconds during which a just-spent refresh token still yields the session's active token.
    public var refreshReuseInterval: TimeInterval = defaultRefreshReuseInterval
    /// Hard maximum age of a session in seconds (`nil`: sessions live until signed out).
    public var sessionTimebox: TimeInterval?
    /// Seconds a session may go without a refresh before it expires (GoTrue's
    /// `GOTRUE_SESSIONS_INACTIVITY_TIMEOUT`): its refresh token then answers 400
    /// `session_expired` ("Invalid Refresh Token: Session Expired (Inactivity)"). `nil`: no limit.
    public var sessionInactivityTimeout: TimeInterval?
    /// Seconds between two runs of the cleanup task that deletes spent refresh tokens, ended
    /// sessions, expired email links and PKCE flows, and old audit entries; `0` turns it off.
    /// Every instance on one PostgreSQL database may run it.
    public var cleanupInterval: TimeInterval = defaultCleanupInterval
    /// Seconds an answer of `/recover`, `/otp`, `/magiclink`, `/resend` and an unconfirmed
    /// `/signup` takes at least, sent or not: every such answer is held to a target above both
    /// this floor and the slowest recent send of its route and channel, so its timing names no
    /// account (see `Documentation/Server.md`, "Security"). `0` pads to recent sends only.
    public var responsePaddingFloor: TimeInterval = 0.25
    /// Seconds a spent refresh token is kept (at least ``refreshReuseInterval``). The active token
    /// of a session and its parent are kept whatever their age.
    public var refreshTokenRetention: TimeInterval = defaultRefreshTokenRetention
    /// Seconds audit entries are kept.
    public var auditRetention: TimeInterval = defaultAuditRetention
    /// Seconds a connection may be idle before the server closes it, and the longest a request
    /// may take to arrive (head and body); a slow or silent client cannot hold a connection.
    public var idleTimeout: TimeInterval = defaultIdleTimeout
    /// The most connections served at once; further ones wait in the listen backlog until one
    /// closes. `nil`: derived from the process's open-file limit (see
    /// ``resolvedMaximumConnections()``).
    public var maximumConnections: Int?
    /// HS256 secret for access tokens (at least 32 bytes). `nil`: generated on first start and
    /// kept in `<dataDirectory>/jwt-secret` so tokens survive restarts.
    public var jwtSecret: String?
    /// Asymmetric (or further HS256) keys for access tokens, as GoTrue's `GOTRUE_JWT_KEYS`: its
    /// one signing key signs new access tokens (their header names its `kid`), every key
    /// verifies, and `GET /.well-known/jwks.json` publishes the public ones. `nil`: the
    /// ``jwtSecret`` signs (HS256, no `kid`). The secret keeps verifying HS256 tokens without a
    /// `kid` (the API keys) either way.
    public var jwtKeys: JWTKeySet?
    /// Minimum password length for sign-up and password changes.
    public var minimumPasswordLength: Int = defaultMinimumPasswordLength
    /// Sets of characters a new password must each take one character from, as GoTrue's
    /// `GOTRUE_PASSWORD_REQUIRED_CHARACTERS` (`abcdefghijklmnopqrstuvwxyz`,
    /// `ABCDEFGHIJKLMNOPQRSTUVWXYZ`, `0123456789`); empty (the default): none.
    public var passwordRequiredCharacters: [String] = []
    /// Whether new passwords are checked against Have I Been Pwned's Pwned Passwords (only a
    /// 5-character SHA-1 prefix leaves the server), as GoTrue's `GOTRUE_PASSWORD_HIBP_ENABLED`.
    public var passwordLeakCheck: Bool = false
    /// With ``passwordLeakCheck``: refuse new passwords while the API cannot be asked
    /// (GoTrue's `GOTRUE_PASSWORD_HIBP_FAIL_CLOSED`); otherwise they are allowed.
    public var passwordLeakCheckFailClosed: Bool = false
    /// A local stand-in for the Pwned Passwords range API (`http://127.0.0.1:PORT/range/`), used
    /// only with `ExternalProviderSettings.allowLoopbackProviders`, for tests.
    var pwnedPasswordsRangeURL: String?
    /// bcrypt cost factor for new password hashes.
    public var bcryptCost: Int = defaultBcryptCost
    /// Lifetime of sign-up confirmation and email-change links, in seconds.
    public var confirmationTokenTTL: TimeInterval = 86_400
    /// Lifetime of password-recovery links, in seconds.
    public var recoveryTokenTTL: TimeInterval = 3600
    /// Seconds an emailed six-digit code (and a reauthentication nonce) stays valid.
    public var emailCodeTTL: TimeInterval = defaultEmailCodeTTL
    /// Whether email addresses sign up and sign in (GoTrue's `GOTRUE_EXTERNAL_EMAIL_ENABLED`, on
    /// by default). Off: `/settings` reports `email: false`; email sign-ups, password sign-ins
    /// with an address, email codes and links (`/otp`, `/magiclink`, `/recover`, `/resend`) are
    /// refused with GoTrue's `email_provider_disabled`. Administrators can still create users.
    public var emailEnabled: Bool = true
    /// Whether `POST /signup` with neither email nor phone signs in an anonymous user.
    public var enableAnonymousUsers: Bool = false
    /// Whether changing the password from a session older than 24 hours needs the nonce mailed by
    /// `GET /reauthenticate` (GoTrue's `GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION`).
    public var securePasswordChange: Bool = false
    /// Whether a signed-in user may delete their own account with `DELETE /user`, after a recent
    /// reauthentication (beyond GoTrue; `--allow-self-deletion`, `LATCHKEY_ALLOW_SELF_DELETION`).
    /// Off by default: then `DELETE /user` answers 403 `self_deletion_disabled`.
    public var allowSelfDeletion: Bool = false
    /// Whether an email change needs a confirmation from the current address as well as from
    /// the new one (GoTrue's `GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED`, on by default).
    public var secureEmailChange: Bool = true
    /// Which account-change notices are mailed (GoTrue's `GOTRUE_MAILER_NOTIFICATIONS_*_ENABLED`, all off).
    public var notifications = AccountNoticeSettings()
    /// Whether a new password needs the current one (`current_password`) when the user has one,
    /// except in a session started by a recovery link or code (GoTrue's
    /// `GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD`).
    public var requireCurrentPassword: Bool = false
    /// Multi-factor authentication: which factor types may be enrolled and verified, and their limits.
    public var mfa = MFASettings()
    /// The OAuth 2.1 authorization server (GoTrue's `GOTRUE_OAUTH_SERVER_*`), off by default.
    public var oauthServer = OAuthServerSettings()
    /// Request rate limits (per server instance).
    public var rateLimits: RateLimitConfiguration = .default
    /// A folder of Mustache templates (`home.mustache`, `password.mustache`, `style.css`, …) that
    /// replace the hosted pages' defaults of the same name; `nil` uses the shipped ones.
    public var pageTemplatesDirectory: URL?
    /// A folder of mail templates (`confirmation.subject`, `confirmation.txt`,
    /// `confirmation.html`, … for GoTrue's kinds `confirmation`, `invite`, `recovery`,
    /// `magic_link`, `email_change`, `reauthentication`) replacing the defaults part by part;
    /// `nil` uses the built-in ones. Checked when the server starts (see `MailTemplates`).
    public var mailTemplatesDirectory: URL?
    /// Threads that hash and verify passwords; `nil` means one per CPU core.
    public var passwordHashingThreads: Int?
    /// Where emails go: `nil` writes them to `<dataDirectory>/outbox`;
    /// `smtp://USER:PASSWORD@HOST:PORT` (STARTTLS required; `?starttls=optional` to allow plain
    /// text) or `smtps://…` (implicit TLS) sends them over SMTP (see ``SMTPSettings``).
    public var smtpURL: String?
    /// The sender of emails, `Name <address>` or `address`. `nil` means
    /// ``defaultMailSender``.
    public var mailFrom: String?
    /// Proxies (CIDR networks, IPv4 or IPv6) whose `X-Forwarded-For` is believed: the
    /// client's address is then the right-most address in it that is not a trusted proxy.
    /// Empty (the default): the header is ignored and the client is the connection's peer.
    public var trustedProxies: [String] = []
    /// The bearer token `GET /metrics` requires. `nil` (the default): `/metrics` answers 404.
    public var metricsToken: String?
    /// Whether metrics are recorded at all. Off: nothing is counted or timed (no cost on any
    /// request) and `GET /metrics` answers 404 whatever the token.
    public var metricsEnabled: Bool = true
    /// Sign-in with Apple, Google and other OpenID Connect providers, and identity linking.
    public var external = ExternalProviderSettings()
    /// Passkeys (WebAuthn) and the Apple app association that lets iOS apps use them.
    public var passkeys = PasskeySettings()
    /// CAPTCHA protection (hCaptcha, Cloudflare Turnstile).
    public var captcha = CaptchaSettings()
    /// Auth hooks: HTTPS endpoints called, signed with Standard Webhooks, at points of GoTrue's flows.
    public var hooks = AuthHooks()
    /// Phone sign-in over SMS.
    public var phone = PhoneSettings()
    /// Longest time `GET /ready` waits for the database before answering 503.
    public static let readinessTimeout: Duration = .seconds(3)
    /// The default sender of emails.
    public static let defaultMailSender = "Latchkey <no-reply@latchkey.invalid>"

    /// A configuration with every default, keeping its data in `dataDirectory`.
    public init(dataDirectory: URL) {
        self.dataDirectory = dataDirectory
    }

    /// The URL the server is reached at, as used in tokens and links.
    public func resolvedExternalURL() -> String {
        if let externalURL { return externalURL.trimmingTrailingSlash() }
        let hostPart = host.contains(":") ? "[\(host)]" : host
        return "http://\(hostPart):\(port)"
    }

    /// Checks settings that would make the server unsafe or unusable. A message names the
    /// setting by its flag and environment variables (``ServerSetting/label``), such as
    /// `--access-token-ttl (LATCHKEY_ACCESS_TOKEN_TTL, GOTRUE_JWT_EXP) must be at least 1 second`.
    /// Settings GoTrue starts with but that leave a feature unusable (an SMS provider without
    /// its credentials, WebAuthn without a relying party) are not refused here: ``warnings()``
    /// names them, and the feature fails at use with GoTrue's answer.
    public func validate() throws(ConfigurationError) {
        typealias S = ServerSetting
        if let jwtSecret, jwtSecret.utf8.count < 32 { throw S.jwtSecret.error("must be at least 32 bytes long") }
        guard accessTokenTTL >= 1 else { throw S.accessTokenTTL.error("must be at least 1 second") }
        guard !jwtAdminRoles.isEmpty, !jwtAdminRoles.contains(where: \.isEmpty) else {
            throw S.jwtAdminRole.error("needs at least one non-empty role")
        }
        guard emailCodeTTL >= 1 else { throw S.emailCodeTTL.error("must be at least 1 second") }
        guard refreshReuseInterval >= 0 else { throw S.refreshReuseInterval.error("cannot be negative") }
        guard (4...31).contains(bcryptCost) else { throw S.bcryptCost.error("must be between 4 and 31") }
        guard minimumPasswordLength >= 6 else { throw S.passwordMinLength.error("must be at least 6") }
        guard (1...1000).contains(databasePoolSize) else { throw S.databasePoolSize.error("must be between 1 and 1000") }
        guard databaseTimeout > 0 else { throw S.databaseTimeout.error("must be more than 0 seconds") }
        try external.validate()
        try captcha.validate()
        let postgres: Bool
        if case .postgres? = try? databaseLocation() { postgres = true } else { postgres = false }
        try hooks.validate(postgres: postgres)
        try phone.validate()
        try passkeys.validate()
        if let sessionInactivityTimeout, sessionInactivityTimeout <= 0 {
            throw S.sessionInactivityTimeout.error("must be more than 0 seconds")
        }
        guard cleanupInterval >= 0 else { throw S.cleanupInterval.error("cannot be negative (0 turns the cleanup off)") }
        guard (0...10).contains(responsePaddingFloor) else { throw S.responsePaddingFloor.error("must be from 0 to 10 seconds") }
        guard refreshTokenRetention >= refreshReuseInterval else {
            throw S.refreshTokenRetention.error("must be at least \(S.refreshReuseInterval.label)")
        }
        guard auditRetention > 0 else { throw S.auditRetention.error("must be more than 0 seconds") }
        try mfa.validate()
        guard idleTimeout > 0 else { throw S.idleTimeout.error("must be more than 0 seconds") }
        if let maximumConnections, maximumConnections < 1 { throw S.maxConnections.error("must be at least 1") }
        guard (0...65535).contains(port) else { throw S.port.error("must be between 0 and 65535") }
        do {
            _ = try smtpSettings()
        } catch {
            throw error.namingSetting()
        }
        _ = try mailSender()
        _ = try TrustedProxies(parsing: trustedProxies)
        if let metricsToken, metricsToken.utf8.count < 16 {
            throw S.metricsToken.error("must be at least 16 characters long")
        }
        if metricsToken != nil, !metricsEnabled {
            throw S.metricsToken.error("serves metrics that \(S.metricsEnabled.label) false turns off: give one or the other")
        }
        if let siteURL, URL(string: siteURL)?.scheme == nil {
            throw S.siteURL.error("must be an absolute URL, such as https://app.example.com")
        }
    }
}

extension ServerConfiguration {
    /// File descriptors kept free for everything but client connections: the database files
    /// and pool, the hashing threads, the outbox, SMTP connections.
    static let reservedFileDescriptors = 128
    /// The most connections derived from a large open-file limit (memory, not descriptors, is
    /// then what runs out).
    static let derivedMaximumConnectionsCap = 10_000

    /// ``maximumConnections``, or, when unset, the process's open-file limit less
    /// ``reservedFileDescriptors`` (at most 10,000, at least 16): the server then never runs out
    /// of descriptors however many connections clients open.
    public func resolvedMaximumConnections() -> Int {
        if let maximumConnections { return maximumConnections }
        var limit = rlimit()
        #if os(Linux)
        let status = getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit)
        #else
        let status = getrlimit(RLIMIT_NOFILE, &limit)
        #endif
        guard status == 0, limit.rlim_cur < rlim_t(Int32.max) else { return Self.derivedMaximumConnectionsCap }
        let available = Int(clamping: limit.rlim_cur) - Self.reservedFileDescriptors
        return min(max(available, 16), Self.derivedMaximumConnectionsCap)
    }

    /// ``smtpURL`` parsed, or `nil` when mail goes to the outbox.
    public func smtpSettings() throws(ConfigurationError) -> SMTPSettings? {
        try smtpURL.map { url throws(ConfigurationError) in try SMTPSettings(url: url) }
    }

    /// ``mailFrom`` parsed (``defaultMailSender`` when `nil`).
    public func mailSender() throws(ConfigurationError) -> MailAddress {
        do {
            return try MailAddress(parsing: mailFrom ?? Self.defaultMailSender)
        } catch {
            throw ServerSetting.mailFrom.error("must be an address or Name <address>: \(error.description)")
        }
    }
}

/// A configuration that cannot be used, with a message for the operator.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }

    /// The message with a leading `--flag` replaced by the setting's full
    /// ``ServerSetting/label`` (flag and environment variables), for the messages of parsers
    /// that name the flag only (SMTP and database URLs, template folders).
    package func namingSetting() -> ConfigurationError {
        guard description.hasPrefix("--") else { return self }
        let flag = description.dropFirst(2).prefix { $0.isLetter || $0.isNumber || $0 == "-" }
        guard let setting = ServerSetting.named(String(flag)), setting.flag != nil,
            !description.dropFirst(2 + flag.count).hasPrefix(" (")
        else { return self }
        return ConfigurationError(setting.label + description.dropFirst(2 + flag.count))
    }
}

extension String {
    func trimmingTrailingSlash() -> String {
        var value = self
        while value.hasSuffix("/") { value.removeLast() }
        return value
    }
}
