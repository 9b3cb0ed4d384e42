import ArgumentParser
import Foundation
import LatchkeyServer
import Logging

#if canImport(Glibc)
import Glibc
#endif

/// `latchkey serve`: runs the auth server until SIGTERM or SIGINT.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the Latchkey auth server (GoTrue-compatible).",
        discussion: """
            Data lives in --data-dir: the SQLite database, the JWT secret generated on first start \
            (unless LATCHKEY_JWT_SECRET is set, at least 32 bytes), and outbox/ with one .eml file per email \
            unless --smtp-url (or LATCHKEY_SMTP_URL, or GoTrue's GOTRUE_SMTP_HOST/PORT/USER/PASS) sends them \
            over SMTP; --mail-from (LATCHKEY_MAIL_FROM, GOTRUE_SMTP_ADMIN_EMAIL and GOTRUE_SMTP_SENDER_NAME) \
            sets the sender.

            Every option can also come from the environment: --access-token-ttl from \
            LATCHKEY_ACCESS_TOKEN_TTL (LATCHKEY_ and the name in upper snake case; flags take true or false; \
            repeatable options a comma-separated list), and GoTrue's names where one exists (GOTRUE_SITE_URL, \
            API_EXTERNAL_URL, DATABASE_URL, GOTRUE_JWT_EXP, …). The command line wins over the environment.
            """)

    @Option(help: "Interface to listen on.") var host: String = ServerConfiguration.defaultHost
    @Option(help: "Port to listen on (0 picks a free port).") var port: Int = ServerConfiguration.defaultPort
    @OptionGroup var data: DataOptions
    @Flag(help: "Confirm new sign-ups without an email round trip.") var autoconfirm = false
    @Flag(help: "Refuse new sign-ups (admins can still create users).") var disableSignup = false
    @Option(name: .customLong("site-url"), help: "Where links in emails finally send the user (default: the server's own URL).")
    var siteURL: String?
    @Option(name: .customLong("external-url"), help: "The server's public URL, for links and the token issuer (default: http://HOST:PORT).")
    var externalURL: String?
    @Option(name: .customLong("redirect-url"), help: "A further URL that redirect_to may point at (repeatable).")
    var redirectURLs: [String] = []
    @Option(
        name: .customLong("access-token-ttl"),
        help: "Access-token lifetime in seconds (at least 1). Supabase clients treat a token with under 30 s left as expired, so below a minute they refresh on nearly every call; the server warns under 60 s.")
    var accessTokenTTL: Int = Int(ServerConfiguration.defaultAccessTokenTTL)
    @Option(name: .customLong("jwt-admin-role"), help: "A role whose API keys may use /admin (repeatable; default: service_role, supabase_admin).")
    var jwtAdminRoles: [String] = []
    @Option(
        name: .customLong("cors-allowed-origins"),
        help: "Origins browsers may call from, comma-separated, one * wildcard each (default: every origin, as GoTrue).")
    var corsAllowedOrigins: String?
    @Option(
        name: .customLong("cors-allowed-headers"),
        help: "Request headers allowed cross-origin besides GoTrue's defaults and apikey, comma-separated.")
    var corsAllowedHeaders: String?
    @Option(name: .customLong("refresh-reuse-interval"), help: "Seconds a just-spent refresh token still yields the active one.")
    var refreshReuseInterval: Int = Int(ServerConfiguration.defaultRefreshReuseInterval)
    @Option(name: .customLong("session-timebox"), help: "Maximum session age in seconds (default: unlimited).")
    var sessionTimebox: Int?
    @Option(name: .customLong("session-inactivity-timeout"), help: "Seconds a session may go without a refresh before it expires (default: unlimited).")
    var sessionInactivityTimeout: Int?
    @Option(name: .customLong("cleanup-interval"), help: "Seconds between runs of the task deleting spent tokens, ended sessions, expired links and old audit entries (0: off).")
    var cleanupInterval: Int = Int(ServerConfiguration.defaultCleanupInterval)
    @Option(name: .customLong("refresh-token-retention"), help: "Seconds a spent refresh token is kept (the active token and its parent always are).")
    var refreshTokenRetention: Int = Int(ServerConfiguration.defaultRefreshTokenRetention)
    @Option(name: .customLong("audit-retention"), help: "Seconds audit entries are kept.")
    var auditRetention: Int = Int(ServerConfiguration.defaultAuditRetention)
    @Option(name: .customLong("idle-timeout"), help: "Seconds a connection may stay idle, and the longest a request may take to arrive.")
    var idleTimeout: Int = Int(ServerConfiguration.defaultIdleTimeout)
    @Option(name: .customLong("max-connections"), help: "Most connections served at once; more wait (default: the open-file limit less 128, at most 10000).")
    var maxConnections: Int?
    @Option(
        name: .customLong("database"),
        help: "Database URL: sqlite://PATH (default sqlite://<data-dir>/latchkey.sqlite) or postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=require] to share one database between several instances.")
    var database: String?
    @Option(name: .customLong("database-pool-size"), help: "PostgreSQL: most connections this instance opens.")
    var databasePoolSize: Int = ServerConfiguration.defaultDatabasePoolSize
    @Option(name: .customLong("database-timeout"), help: "PostgreSQL: seconds a request waits for a connection before it is answered 503.")
    var databaseTimeout: Double = ServerConfiguration.defaultDatabaseTimeout
    @Flag(name: .customLong("enable-anonymous-users"), help: "Let POST /signup without an email sign in an anonymous user.")
    var enableAnonymousUsers = false
    @Flag(
        name: .customLong("secure-password-change"),
        help: "Changing the password from a session older than 24 h needs the nonce mailed by GET /reauthenticate.")
    var securePasswordChange = false
    @Option(name: .customLong("email-code-ttl"), help: "Seconds an emailed six-digit code stays valid.")
    var emailCodeTTL: Int = Int(ServerConfiguration.defaultEmailCodeTTL)
    @Option(name: .customLong("password-min-length"), help: "Minimum password length.")
    var passwordMinLength: Int = ServerConfiguration.defaultMinimumPasswordLength
    @Option(name: .customLong("bcrypt-cost"), help: "bcrypt cost for new password hashes.")
    var bcryptCost: Int = ServerConfiguration.defaultBcryptCost
    @Flag(name: .customLong("no-rate-limits"), help: "Turn rate limits off (benchmarks only).")
    var noRateLimits = false
    @Option(name: .customLong("rate-limit-signin"), help: "Sign-in and sign-up requests per IP per 5 minutes.")
    var signInLimit: Int = RateLimitConfiguration.default.signInsPerIP.count
    @Option(name: .customLong("rate-limit-failed-password"), help: "Failed password attempts per account per 5 minutes.")
    var failedPasswordLimit: Int = RateLimitConfiguration.default.failedPasswordAttemptsPerAccount.count
    @Option(name: .customLong("rate-limit-email"), help: "Emails per address per hour.")
    var emailLimit: Int = RateLimitConfiguration.default.emailsPerAddress.count
    @Option(name: .customLong("rate-limit-refresh"), help: "Refreshes per session per 5 minutes.")
    var refreshLimit: Int = RateLimitConfiguration.default.refreshesPerSession.count
    @Option(name: .customLong("rate-limit-verify"), help: "Email-link, code and PKCE verifications per IP per 5 minutes.")
    var verifyLimit: Int = RateLimitConfiguration.default.verificationsPerIP.count
    @Option(name: .customLong("rate-limit-mfa"), help: "MFA challenges and verifications per IP per minute.")
    var mfaLimit: Int = RateLimitConfiguration.default.mfaRequestsPerIP.count
    @Option(name: .customLong("rate-limit-failed-mfa-code"), help: "Wrong MFA (TOTP) codes per factor per 5 minutes.")
    var failedMFACodeLimit: Int = RateLimitConfiguration.default.failedMFACodesPerFactor.count
    @Option(name: .customLong("mfa-max-enrolled-factors"), help: "Most MFA factors, verified or not, one user may have.")
    var mfaMaxEnrolledFactors: Int = ServerConfiguration.defaultMFAMaxEnrolledFactors
    @Option(name: .customLong("mfa-max-verified-factors"), help: "Most verified MFA factors one user may have.")
    var mfaMaxVerifiedFactors: Int = ServerConfiguration.defaultMFAMaxVerifiedFactors
    @Option(name: .customLong("mfa-challenge-expiry"), help: "Seconds an MFA challenge can be verified.")
    var mfaChallengeExpiry: Int = Int(ServerConfiguration.defaultMFAChallengeExpiry)
    @Option(name: .customLong("mfa-factor-expiry"), help: "Seconds an enrolled MFA factor may stay unverified before it is deleted.")
    var mfaFactorExpiry: Int = Int(ServerConfiguration.defaultMFAFactorExpiry)
    @Flag(inversion: .prefixedNo, help: "Let users enroll TOTP factors.")
    var mfaTotpEnroll = true
    @Flag(inversion: .prefixedNo, help: "Let users challenge and verify TOTP factors.")
    var mfaTotpVerify = true
    @Option(
        name: .customLong("smtp-url"),
        help: "Send emails over SMTP: smtp://USER:PASSWORD@HOST:PORT (STARTTLS required; ?starttls=optional allows plain text) or smtps://... (implicit TLS). Default: the outbox folder.")
    var smtpURL: String?
    @Option(name: .customLong("mail-from"), help: "Sender of emails: \"Name <address>\" or address.")
    var mailFrom: String?
    @Option(
        name: .customLong("page-templates"),
        help: "Folder of Mustache templates replacing the hosted pages' defaults by file name (home.mustache, password.mustache, style.css, …).")
    var pageTemplates: String?
    @Option(
        name: .customLong("mail-templates"),
        help: "Folder of mail templates replacing the defaults part by part: <kind>.subject, <kind>.txt, <kind>.html for confirmation, invite, recovery, magic_link, email_change, reauthentication (GoTrue's {{ .Variable }} syntax, substitution only).")
    var mailTemplates: String?
    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical.")
    var logLevel: String = "info"
    @Option(name: .customLong("log-format"), help: "text (one line per event) or json (one JSON object per line).")
    var logFormat: String = LogFormat.text.rawValue
    @Option(
        name: .customLong("trusted-proxy"),
        help: "A proxy (IPv4 or IPv6 CIDR, or one address) whose X-Forwarded-For is believed (repeatable). By default none is.")
    var trustedProxies: [String] = []
    @Option(
        name: .customLong("metrics-token"),
        help: "Serve GET /metrics (Prometheus text) to requests with Authorization: Bearer TOKEN (at least 16 characters; prefer LATCHKEY_METRICS_TOKEN). Default: no /metrics.")
    var metricsToken: String?
    @Option(
        name: .customLong("metrics-enabled"),
        help: "Record metrics (true or false). false: nothing is counted or timed and GET /metrics answers 404.")
    var metricsEnabled: Bool = true
    @Option(
        name: .customLong("jwt-keys"),
        help: ArgumentHelp(
            "Signing keys as GoTrue's GOTRUE_JWT_KEYS: a JSON array of private JWKs (ES256, RS256 or HS256), exactly one with \"sign\" in key_ops (see `latchkey keys generate`). Prefer LATCHKEY_JWT_KEYS or --jwt-keys-file to the command line. Default: the JWT secret signs (HS256).",
            valueName: "json"))
    var jwtKeys: String?
    @Option(name: .customLong("jwt-keys-file"), help: "A file holding the --jwt-keys JSON (keeps private keys out of the command line).")
    var jwtKeysFile: String?
    @Option(
        name: .customLong("database-url-file"),
        help: "A file holding the database URL (keeps a password out of the command line, like LATCHKEY_DATABASE_URL).")
    var databaseURLFile: String?

    func validate() throws {
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level must be one of trace, debug, info, notice, warning, error, critical") }
        guard LogFormat(rawValue: logFormat) != nil else { throw ValidationError("--log-format must be text or json") }
        if let databaseURLFile {
            guard database == nil else { throw ValidationError("give the database URL once: --database or --database-url-file") }
            guard Self.fileContents(databaseURLFile) != nil else { throw ValidationError("--database-url-file \(databaseURLFile): cannot read a URL from it") }
        }
        if let jwtKeysFile {
            guard jwtKeys == nil else { throw ValidationError("give the JWT keys once: --jwt-keys or --jwt-keys-file") }
            guard Self.fileContents(jwtKeysFile) != nil else { throw ValidationError("--jwt-keys-file \(jwtKeysFile): cannot read JWT keys from it") }
        }
        if let json = jwtKeysJSON {
            do {
                _ = try JWTKeySet(json: json)
            } catch {
                throw ValidationError(error.description)
            }
        }
        for limit in [signInLimit, failedPasswordLimit, emailLimit, refreshLimit, verifyLimit, mfaLimit, failedMFACodeLimit] where limit < 1 {
            throw ValidationError("rate limits must be at least 1; use --no-rate-limits to turn them off")
        }
    }

    func serverConfiguration() -> ServerConfiguration {
        var configuration = ServerConfiguration(dataDirectory: data.dataDirectoryURL)
        configuration.host = host
        configuration.port = port
        configuration.autoconfirm = autoconfirm
        configuration.disableSignup = disableSignup
        configuration.siteURL = siteURL
        configuration.externalURL = externalURL
        configuration.additionalRedirectURLs = redirectURLs
        configuration.accessTokenTTL = TimeInterval(accessTokenTTL)
        if !jwtAdminRoles.isEmpty { configuration.jwtAdminRoles = jwtAdminRoles }
        configuration.corsAllowedOrigins = Self.list(corsAllowedOrigins)
        configuration.corsAllowedHeaders = Self.list(corsAllowedHeaders)
        configuration.refreshReuseInterval = TimeInterval(refreshReuseInterval)
        configuration.sessionTimebox = sessionTimebox.map(TimeInterval.init)
        configuration.sessionInactivityTimeout = sessionInactivityTimeout.map(TimeInterval.init)
        configuration.cleanupInterval = TimeInterval(cleanupInterval)
        configuration.refreshTokenRetention = TimeInterval(refreshTokenRetention)
        configuration.auditRetention = TimeInterval(auditRetention)
        configuration.idleTimeout = TimeInterval(idleTimeout)
        configuration.maximumConnections = maxConnections
        configuration.databaseURL = database ?? databaseURLFile.flatMap(Self.fileContents)
        configuration.trustedProxies = trustedProxies
        configuration.metricsToken = metricsToken
        configuration.metricsEnabled = metricsEnabled
        configuration.databasePoolSize = databasePoolSize
        configuration.databaseTimeout = databaseTimeout
        configuration.jwtSecret = data.environmentSecret
        configuration.jwtKeys = jwtKeysJSON.flatMap { try? JWTKeySet(json: $0) }
        configuration.minimumPasswordLength = passwordMinLength
        configuration.bcryptCost = bcryptCost
        configuration.enableAnonymousUsers = enableAnonymousUsers
        configuration.securePasswordChange = securePasswordChange
        configuration.emailCodeTTL = TimeInterval(emailCodeTTL)
        configuration.mfaMaxEnrolledFactors = mfaMaxEnrolledFactors
        configuration.mfaMaxVerifiedFactors = mfaMaxVerifiedFactors
        configuration.mfaChallengeExpiry = TimeInterval(mfaChallengeExpiry)
        configuration.mfaFactorExpiry = TimeInterval(mfaFactorExpiry)
        configuration.mfaTOTPEnrollEnabled = mfaTotpEnroll
        configuration.mfaTOTPVerifyEnabled = mfaTotpVerify
        configuration.pageTemplatesDirectory = pageTemplates.map { URL(fileURLWithPath: $0) }
        configuration.mailTemplatesDirectory = mailTemplates.map { URL(fileURLWithPath: $0) }
        var limits = RateLimitConfiguration()
        limits.enabled = !noRateLimits
        limits.signInsPerIP.count = signInLimit
        limits.failedPasswordAttemptsPerAccount.count = failedPasswordLimit
        limits.emailsPerAddress.count = emailLimit
        limits.refreshesPerSession.count = refreshLimit
        limits.verificationsPerIP.count = verifyLimit
        limits.mfaRequestsPerIP.count = mfaLimit
        limits.failedMFACodesPerFactor.count = failedMFACodeLimit
        configuration.rateLimits = limits
        let mail = MailEnvironment.resolve(smtpURL: smtpURL, mailFrom: mailFrom, environment: ProcessInfo.processInfo.environment)
        configuration.smtpURL = mail.smtpURL
        configuration.mailFrom = mail.mailFrom
        return configuration
    }

    /// The JWT keys' JSON, from --jwt-keys or --jwt-keys-file.
    var jwtKeysJSON: String? { jwtKeys ?? jwtKeysFile.flatMap(Self.fileContents) }

    /// A file's text, trimmed; `nil` when unreadable or empty.
    static func fileContents(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }

    /// The entries of a comma-separated option, trimmed, empty ones dropped.
    static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func run() async throws {
        // Everything the server writes (database, secret, outbox) is for its owner only.
        umask(0o077)
        (LogFormat(rawValue: logFormat) ?? .text).bootstrap()
        var logger = Logger(label: "latchkey")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let configuration = serverConfiguration()
        logEffectiveSettings(configuration, logger: logger)
        do {
            if noRateLimits { logger.warning("rate limits are OFF (--no-rate-limits): use this for benchmarks only") }
            try await LatchkeyApplication.run(configuration: configuration, logger: logger)
        } catch let error as ConfigurationError {
            throw ValidationError(error.description)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            // A port in use, a data directory that cannot be written, a database that cannot be
            // reached: one plain sentence naming the fix, without a usage text or raw error.
            throw ServeStartFailure.exit(error, configuration: configuration, logger: logger)
        }
    }
}
