import Foundation
import LatchkeyServer
import Logging
import Testing

@testable import LatchkeyCommand

/// Every `serve` option from the environment, GoTrue's names, the JSON log format.
@Suite("options from the environment")
struct EnvironmentOptionsTests {
    func parse(_ arguments: [String], _ environment: [String: String]) throws -> (ServeCommand.Settings, [String]) {
        let settings = try ServeCommand.parse(arguments).settings(environment: environment)
        return (settings, settings.resolution.variables)
    }

    @Test("every serve option has its LATCHKEY_ variable, from the settings table")
    func everyOption() throws {
        let names = Set(ServeCommand.optionSettings.compactMap(\.flag))
        for name in [
            "host", "port", "data-dir", "access-token-ttl", "autoconfirm", "redirect-url", "trusted-proxy", "log-format", "database-url-file",
        ] {
            #expect(names.contains(name), "\(name)")
        }
        #expect(!names.contains("help") && !names.contains("version"))
        #expect(ServerSetting.latchkeyVariable(for: "access-token-ttl") == "LATCHKEY_ACCESS_TOKEN_TTL")
        #expect(ServerSetting.accessTokenTTL.variableNames.first == "LATCHKEY_ACCESS_TOKEN_TTL")
        #expect(ServerSetting.redirectURL.kind == .list)
        #expect(ServerSetting.autoconfirm.kind == .flag)
    }

    @Test("LATCHKEY_ names: values, flags, lists; the command line wins")
    func latchkeyNames() throws {
        let (settings, variables) = try parse(
            ["--port", "7000"],
            [
                "LATCHKEY_PORT": "8000", "LATCHKEY_ACCESS_TOKEN_TTL": "120", "LATCHKEY_AUTOCONFIRM": "true", "LATCHKEY_DISABLE_SIGNUP": "0",
                "LATCHKEY_REDIRECT_URL": "https://a.example.com, https://b.example.com", "LATCHKEY_TRUSTED_PROXY": "10.0.0.0/8,::1",
                "LATCHKEY_DATA_DIR": "/tmp/latchkey-env", "LATCHKEY_LOG_FORMAT": "json", "LATCHKEY_SESSION_TIMEBOX": "",
            ])
        let configuration = settings.configuration
        #expect(configuration.port == 7000, "the command line wins")
        #expect(configuration.accessTokenTTL == 120)
        #expect(configuration.autoconfirm && !configuration.disableSignup)
        #expect(configuration.additionalRedirectURLs == ["https://a.example.com", "https://b.example.com"])
        #expect(configuration.trustedProxies == ["10.0.0.0/8", "::1"])
        #expect(configuration.dataDirectory.path == "/tmp/latchkey-env")
        #expect(configuration.sessionTimebox == nil, "an empty variable is unset")
        #expect(settings.logFormat == .json)
        #expect(!variables.contains("LATCHKEY_PORT"))
        #expect(throws: (any Error).self) { try parse([], ["LATCHKEY_AUTOCONFIRM": "maybe"]) }
        // --autoconfirm on the command line is not doubled by the environment.
        #expect(throws: Never.self) { try parse(["--autoconfirm"], ["LATCHKEY_AUTOCONFIRM": "1"]) }
    }

    @Test("--metrics-enabled and --mail-templates from the environment, GoTrue's GOTRUE_METRICS_ENABLED too")
    func metricsAndMailTemplates() throws {
        #expect(try parse([], [:]).0.configuration.metricsEnabled, "on by default")
        let (settings, _) = try parse([], ["LATCHKEY_METRICS_ENABLED": "false", "LATCHKEY_MAIL_TEMPLATES": "/etc/latchkey/mail"])
        #expect(!settings.configuration.metricsEnabled)
        #expect(settings.configuration.mailTemplatesDirectory?.path == "/etc/latchkey/mail")
        #expect(!(try parse([], ["GOTRUE_METRICS_ENABLED": "0"]).0.configuration.metricsEnabled))
        #expect(try parse(["--metrics-enabled", "true"], ["GOTRUE_METRICS_ENABLED": "false"]).0.configuration.metricsEnabled)
        #expect(throws: (any Error).self) { try parse([], ["GOTRUE_METRICS_ENABLED": "sometimes"]) }
    }

    @Test("GoTrue's names, Go durations, LATCHKEY_ before GOTRUE_ before the unprefixed names")
    func goTrueNames() throws {
        let environment = [
            "GOTRUE_SITE_URL": "https://app.example.com", "API_EXTERNAL_URL": "https://auth.example.com",
            "GOTRUE_URI_ALLOW_LIST": "https://a.example.com/**,myapp://callback", "GOTRUE_JWT_EXP": "600",
            "GOTRUE_JWT_ADMIN_ROLES": "service_role,ops", "GOTRUE_DISABLE_SIGNUP": "true", "GOTRUE_MAILER_AUTOCONFIRM": "true",
            "GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED": "true", "GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION": "true",
            "GOTRUE_MAILER_OTP_EXP": "900", "GOTRUE_PASSWORD_MIN_LENGTH": "10", "GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL": "5",
            "GOTRUE_SESSIONS_TIMEBOX": "24h", "GOTRUE_CORS_ALLOWED_HEADERS": "x-one,x-two", "GOTRUE_API_HOST": "0.0.0.0",
            "PORT": "8081", "GOTRUE_DB_DATABASE_URL": "sqlite:///tmp/gotrue.sqlite", "DATABASE_URL": "sqlite:///tmp/ignored.sqlite",
            "GOTRUE_LOG_LEVEL": "warn", "GOTRUE_DB_MAX_POOL_SIZE": "0",
        ]
        let (settings, variables) = try parse([], environment)
        let configuration = settings.configuration
        #expect(configuration.siteURL == "https://app.example.com")
        #expect(configuration.externalURL == "https://auth.example.com")
        #expect(configuration.additionalRedirectURLs == ["https://a.example.com/**", "myapp://callback"])
        #expect(configuration.accessTokenTTL == 600)
        #expect(configuration.jwtAdminRoles == ["service_role", "ops"])
        #expect(configuration.disableSignup && configuration.autoconfirm && configuration.enableAnonymousUsers && configuration.securePasswordChange)
        #expect(configuration.emailCodeTTL == 900)
        #expect(configuration.minimumPasswordLength == 10)
        #expect(configuration.refreshReuseInterval == 5)
        #expect(configuration.sessionTimebox == 86_400)
        #expect(configuration.corsAllowedHeaders == ["x-one", "x-two"])
        #expect(configuration.host == "0.0.0.0" && configuration.port == 8081)
        #expect(configuration.databaseURL == "sqlite:///tmp/gotrue.sqlite", "GOTRUE_DB_DATABASE_URL before DATABASE_URL")
        #expect(configuration.databasePoolSize == ServerConfiguration.defaultDatabasePoolSize, "GoTrue's 0 means its default")
        #expect(settings.logLevel == .warning)
        #expect(variables.contains("GOTRUE_SESSIONS_TIMEBOX") && !variables.contains("DATABASE_URL"))

        let (own, _) = try parse([], ["LATCHKEY_SITE_URL": "https://own.example.com", "GOTRUE_SITE_URL": "https://gotrue.example.com"])
        #expect(own.configuration.siteURL == "https://own.example.com")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-db-url-\(UUID().uuidString)")
        try "sqlite:///tmp/from-file.sqlite\n".write(to: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: file) }
        let (fileWins, _) = try parse(["--database-url-file", file.path], ["DATABASE_URL": "sqlite:///tmp/x.sqlite"])
        #expect(fileWins.resolution["database"] == nil, "a database URL file on the command line is not overridden by DATABASE_URL")
        #expect(fileWins.configuration.databaseURL == "sqlite:///tmp/from-file.sqlite")
        let (fromVariable, _) = try parse([], ["LATCHKEY_DATABASE_URL_FILE": file.path])
        #expect(fromVariable.configuration.databaseURL == "sqlite:///tmp/from-file.sqlite")

        #expect(GoDuration.seconds("3600s") == 3600)
        #expect(GoDuration.seconds("1h30m") == 5400)
        #expect(GoDuration.seconds("1500ms") == 1.5)
        #expect(GoDuration.seconds("2.5h") == 9000)
        #expect(GoDuration.seconds("90") == 90)
        #expect(GoDuration.seconds("10 minutes") == nil)
        #expect(throws: (any Error).self) { try parse([], ["GOTRUE_SESSIONS_TIMEBOX": "forever"]) }
    }

    @Test("MFA settings from GoTrue's and Latchkey's names")
    func mfaSettings() throws {
        let (gotrue, variables) = try parse(
            [],
            [
                "GOTRUE_MFA_MAX_ENROLLED_FACTORS": "3", "GOTRUE_MFA_MAX_VERIFIED_FACTORS": "2", "GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION": "600",
                "GOTRUE_MFA_FACTOR_EXPIRY_DURATION": "10m", "GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY": "30",
                "GOTRUE_MFA_TOTP_ENROLL_ENABLED": "false",
            ])
        let configuration = gotrue.configuration
        #expect(configuration.mfa.maxEnrolledFactors == 3 && configuration.mfa.maxVerifiedFactors == 2)
        #expect(configuration.mfa.challengeExpiry == 600 && configuration.mfa.factorExpiry == 600)
        #expect(configuration.rateLimits.mfaRequestsPerIP.count == 30)
        #expect(!configuration.mfa.totpEnrollEnabled && configuration.mfa.totpVerifyEnabled)
        #expect(variables.contains("GOTRUE_MFA_MAX_ENROLLED_FACTORS"))
        let (own, _) = try parse(
            ["--rate-limit-failed-mfa-code", "7"], ["LATCHKEY_MFA_MAX_ENROLLED_FACTORS": "4", "GOTRUE_MFA_MAX_ENROLLED_FACTORS": "3"])
        #expect(own.configuration.mfa.maxEnrolledFactors == 4)
        #expect(own.configuration.rateLimits.failedMFACodesPerFactor.count == 7)
        let (defaults, _) = try parse([], [:])
        #expect(defaults.configuration.mfa.maxEnrolledFactors == ServerConfiguration.defaultMFAMaxEnrolledFactors)
        #expect(defaults.configuration.mfa.challengeExpiry == 300)
    }

    @Test("settings are listed with secrets redacted")
    func redactedSettings() {
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/x"))
        configuration.jwtSecret = "a-jwt-secret-that-is-long-enough-0123456789"
        configuration.databaseURL = "postgres://app:db-pa55word@db.example.com:5432/auth"
        configuration.smtpURL = "smtp://mailer:smtp-pa55word@mail.example.com:587"
        configuration.metricsToken = "metrics-token-0123456789"
        let settings = configuration.redactedSettings()
        let text = settings.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        for secret in ["a-jwt-secret", "db-pa55word", "smtp-pa55word", "metrics-token-0123456789"] { #expect(!text.contains(secret)) }
        #expect(settings["databaseURL"] == "postgres://<redacted>@db.example.com:5432/auth")
        #expect(settings["jwtSecret"] == "<redacted>")
        #expect(settings["accessTokenTTL"] == "3600")
        #expect(settings["minimumPasswordLength"] == "8")
    }

    @Test("--log-format json writes one JSON object per line")
    func jsonLines() throws {
        let line = JSONLogHandler.line(
            label: "latchkey", level: .info, message: "request",
            metadata: ["method": "GET", "path": "/health", "status": "200", "msg": "clash", "nested": ["a": "b"]])
        #expect(line.last == UInt8(ascii: "\n"))
        #expect(line.dropLast().contains(UInt8(ascii: "\n")) == false)
        let object = try #require(try JSONSerialization.jsonObject(with: line) as? [String: Any])
        #expect(object["msg"] as? String == "request")
        #expect(object["meta_msg"] as? String == "clash")
        #expect(object["level"] as? String == "info")
        #expect(object["path"] as? String == "/health")
        #expect((object["nested"] as? [String: Any])?["a"] as? String == "b")
        #expect(object["time"] is String)
    }
}
