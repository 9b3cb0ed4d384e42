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
            (unless LATCHKEY_JWT_SECRET or GOTRUE_JWT_SECRET is set, at least 32 bytes), and outbox/ with one .eml file per email \
            unless --smtp-url (or LATCHKEY_SMTP_URL, or GoTrue's GOTRUE_SMTP_HOST/PORT/USER/PASS) sends them \
            over SMTP; --mail-from (LATCHKEY_MAIL_FROM, GOTRUE_SMTP_ADMIN_EMAIL and GOTRUE_SMTP_SENDER_NAME) \
            sets the sender.

            Every option can also come from the environment: --access-token-ttl from \
            LATCHKEY_ACCESS_TOKEN_TTL (LATCHKEY_ and the name in upper snake case; flags take true or false; \
            repeatable options a comma-separated list), and GoTrue's names where one exists (GOTRUE_SITE_URL, \
            API_EXTERNAL_URL, DATABASE_URL, GOTRUE_JWT_EXP, …; each option's help names them). The command line \
            wins over the environment, Latchkey's names over GoTrue's.
            """)

    // Names, help texts and defaults come from the settings table (`ServerSetting.all`); each
    // option holds what the command line gave, nil when absent (see `commandLine`).
    @Option(name: .setting(.host), help: .setting(.host)) var host: String?
    @Option(name: .setting(.port), help: .setting(.port)) var port: String?
    @OptionGroup var data: DataOptions
    @Flag(name: .setting(.autoconfirm), help: .setting(.autoconfirm)) var autoconfirm = false
    @Flag(name: .setting(.disableSignup), help: .setting(.disableSignup)) var disableSignup = false
    @Option(name: .setting(.siteURL), help: .setting(.siteURL)) var siteURL: String?
    @Option(name: .setting(.externalURL), help: .setting(.externalURL)) var externalURL: String?
    @Option(name: .setting(.redirectURL), help: .setting(.redirectURL)) var redirectURLs: [String] = []
    @Option(name: .setting(.accessTokenTTL), help: .setting(.accessTokenTTL)) var accessTokenTTL: String?
    @Option(name: .setting(.jwtAdminRole), help: .setting(.jwtAdminRole)) var jwtAdminRoles: [String] = []
    @Option(name: .setting(.corsAllowedOrigins), help: .setting(.corsAllowedOrigins)) var corsAllowedOrigins: String?
    @Option(name: .setting(.corsAllowedHeaders), help: .setting(.corsAllowedHeaders)) var corsAllowedHeaders: String?
    @Option(name: .setting(.refreshReuseInterval), help: .setting(.refreshReuseInterval)) var refreshReuseInterval: String?
    @Option(name: .setting(.sessionTimebox), help: .setting(.sessionTimebox)) var sessionTimebox: String?
    @Option(name: .setting(.sessionInactivityTimeout), help: .setting(.sessionInactivityTimeout)) var sessionInactivityTimeout: String?
    @Option(name: .setting(.cleanupInterval), help: .setting(.cleanupInterval)) var cleanupInterval: String?
    @Option(name: .setting(.responsePaddingFloor), help: .setting(.responsePaddingFloor)) var responsePaddingFloor: String?
    @Option(name: .setting(.refreshTokenRetention), help: .setting(.refreshTokenRetention)) var refreshTokenRetention: String?
    @Option(name: .setting(.auditRetention), help: .setting(.auditRetention)) var auditRetention: String?
    @Option(name: .setting(.idleTimeout), help: .setting(.idleTimeout)) var idleTimeout: String?
    @Option(name: .setting(.maxConnections), help: .setting(.maxConnections)) var maxConnections: String?
    @Option(name: .setting(.database), help: .setting(.database)) var database: String?
    @Option(name: .setting(.databasePoolSize), help: .setting(.databasePoolSize)) var databasePoolSize: String?
    @Option(name: .setting(.databaseTimeout), help: .setting(.databaseTimeout)) var databaseTimeout: String?
    @Flag(name: .setting(.enableAnonymousUsers), help: .setting(.enableAnonymousUsers)) var enableAnonymousUsers = false
    @Flag(name: .setting(.securePasswordChange), help: .setting(.securePasswordChange)) var securePasswordChange = false
    @Flag(name: .setting(.allowSelfDeletion), help: .setting(.allowSelfDeletion)) var allowSelfDeletion = false
    @Option(name: .setting(.emailCodeTTL), help: .setting(.emailCodeTTL)) var emailCodeTTL: String?
    @Option(name: .setting(.passwordMinLength), help: .setting(.passwordMinLength)) var passwordMinLength: String?
    @Option(name: .setting(.passwordRequiredCharacters), help: .setting(.passwordRequiredCharacters)) var passwordRequiredCharacters: String?
    @Flag(name: .setting(.passwordLeakCheck), help: .setting(.passwordLeakCheck)) var passwordLeakCheck = false
    @Flag(name: .setting(.passwordLeakCheckFailClosed), help: .setting(.passwordLeakCheckFailClosed)) var passwordLeakCheckFailClosed = false
    @Flag(name: .setting(.captchaEnabled), help: .setting(.captchaEnabled)) var captchaEnabled = false
    @Option(name: .setting(.captchaProvider), help: .setting(.captchaProvider)) var captchaProvider: String?
    @Flag(name: .setting(.hookCustomAccessTokenEnabled), help: .setting(.hookCustomAccessTokenEnabled)) var hookCustomAccessTokenEnabled = false
    @Option(name: .setting(.hookCustomAccessTokenURI), help: .setting(.hookCustomAccessTokenURI)) var hookCustomAccessTokenURI: String?
    @Flag(name: .setting(.hookBeforeUserCreatedEnabled), help: .setting(.hookBeforeUserCreatedEnabled)) var hookBeforeUserCreatedEnabled = false
    @Option(name: .setting(.hookBeforeUserCreatedURI), help: .setting(.hookBeforeUserCreatedURI)) var hookBeforeUserCreatedURI: String?
    @Flag(name: .setting(.hookPasswordVerificationAttemptEnabled), help: .setting(.hookPasswordVerificationAttemptEnabled))
    var hookPasswordVerificationAttemptEnabled = false
    @Option(name: .setting(.hookPasswordVerificationAttemptURI), help: .setting(.hookPasswordVerificationAttemptURI))
    var hookPasswordVerificationAttemptURI: String?
    @Flag(name: .setting(.hookMFAVerificationAttemptEnabled), help: .setting(.hookMFAVerificationAttemptEnabled))
    var hookMFAVerificationAttemptEnabled = false
    @Option(name: .setting(.hookMFAVerificationAttemptURI), help: .setting(.hookMFAVerificationAttemptURI))
    var hookMFAVerificationAttemptURI: String?
    @Flag(name: .setting(.hookSendSMSEnabled), help: .setting(.hookSendSMSEnabled)) var hookSendSMSEnabled = false
    @Option(name: .setting(.hookSendSMSURI), help: .setting(.hookSendSMSURI)) var hookSendSMSURI: String?
    @Flag(name: .setting(.hookSendEmailEnabled), help: .setting(.hookSendEmailEnabled)) var hookSendEmailEnabled = false
    @Option(name: .setting(.hookSendEmailURI), help: .setting(.hookSendEmailURI)) var hookSendEmailURI: String?
    @Flag(name: .setting(.hookAfterUserCreatedEnabled), help: .setting(.hookAfterUserCreatedEnabled)) var hookAfterUserCreatedEnabled = false
    @Option(name: .setting(.hookAfterUserCreatedURI), help: .setting(.hookAfterUserCreatedURI)) var hookAfterUserCreatedURI: String?
    @Option(name: .setting(.bcryptCost), help: .setting(.bcryptCost)) var bcryptCost: String?
    @Flag(name: .setting(.noRateLimits), help: .setting(.noRateLimits)) var noRateLimits = false
    @Option(name: .setting(.rateLimitSignIn), help: .setting(.rateLimitSignIn)) var signInLimit: String?
    @Option(name: .setting(.rateLimitFailedPassword), help: .setting(.rateLimitFailedPassword)) var failedPasswordLimit: String?
    @Option(name: .setting(.rateLimitEmail), help: .setting(.rateLimitEmail)) var emailLimit: String?
    @Option(name: .setting(.rateLimitRefresh), help: .setting(.rateLimitRefresh)) var refreshLimit: String?
    @Option(name: .setting(.rateLimitVerify), help: .setting(.rateLimitVerify)) var verifyLimit: String?
    @Option(name: .setting(.rateLimitAddressChanges), help: .setting(.rateLimitAddressChanges)) var addressChangeLimit: String?
    @Option(name: .setting(.rateLimitMFA), help: .setting(.rateLimitMFA)) var mfaLimit: String?
    @Option(name: .setting(.rateLimitFailedMFACode), help: .setting(.rateLimitFailedMFACode)) var failedMFACodeLimit: String?
    @Option(name: .setting(.mfaMaxEnrolledFactors), help: .setting(.mfaMaxEnrolledFactors)) var mfaMaxEnrolledFactors: String?
    @Option(name: .setting(.mfaMaxVerifiedFactors), help: .setting(.mfaMaxVerifiedFactors)) var mfaMaxVerifiedFactors: String?
    @Option(name: .setting(.mfaChallengeExpiry), help: .setting(.mfaChallengeExpiry)) var mfaChallengeExpiry: String?
    @Option(name: .setting(.mfaFactorExpiry), help: .setting(.mfaFactorExpiry)) var mfaFactorExpiry: String?
    @Flag(name: .setting(.requireCurrentPassword), help: .setting(.requireCurrentPassword)) var requireCurrentPassword = false
    @Flag(name: .setting(.mailerSecureEmailChange), inversion: .prefixedNo, help: .setting(.mailerSecureEmailChange))
    var mailerSecureEmailChange: Bool?
    @Flag(name: .setting(.mailerNotificationsPasswordChanged), help: .setting(.mailerNotificationsPasswordChanged))
    var mailerNotificationsPasswordChanged = false
    @Flag(name: .setting(.mailerNotificationsEmailChanged), help: .setting(.mailerNotificationsEmailChanged))
    var mailerNotificationsEmailChanged = false
    @Flag(name: .setting(.mailerNotificationsPhoneChanged), help: .setting(.mailerNotificationsPhoneChanged))
    var mailerNotificationsPhoneChanged = false
    @Flag(name: .setting(.mailerNotificationsIdentityLinked), help: .setting(.mailerNotificationsIdentityLinked))
    var mailerNotificationsIdentityLinked = false
    @Flag(name: .setting(.mailerNotificationsIdentityUnlinked), help: .setting(.mailerNotificationsIdentityUnlinked))
    var mailerNotificationsIdentityUnlinked = false
    @Flag(name: .setting(.mailerNotificationsMfaFactorEnrolled), help: .setting(.mailerNotificationsMfaFactorEnrolled))
    var mailerNotificationsMfaFactorEnrolled = false
    @Flag(name: .setting(.mailerNotificationsMfaFactorUnenrolled), help: .setting(.mailerNotificationsMfaFactorUnenrolled))
    var mailerNotificationsMfaFactorUnenrolled = false
    @Flag(name: .setting(.mfaTOTPEnroll), inversion: .prefixedNo, help: .setting(.mfaTOTPEnroll)) var mfaTotpEnroll: Bool?
    @Flag(name: .setting(.mfaTOTPVerify), inversion: .prefixedNo, help: .setting(.mfaTOTPVerify)) var mfaTotpVerify: Bool?
    @Flag(name: .setting(.mfaWebAuthnEnroll), help: .setting(.mfaWebAuthnEnroll)) var mfaWebAuthnEnroll = false
    @Flag(name: .setting(.mfaWebAuthnVerify), help: .setting(.mfaWebAuthnVerify)) var mfaWebAuthnVerify = false
    @Flag(name: .setting(.mfaPhoneEnroll), help: .setting(.mfaPhoneEnroll)) var mfaPhoneEnroll = false
    @Flag(name: .setting(.mfaPhoneVerify), help: .setting(.mfaPhoneVerify)) var mfaPhoneVerify = false
    @Option(name: .setting(.mfaPhoneOTPLength), help: .setting(.mfaPhoneOTPLength)) var mfaPhoneOTPLength: String?
    @Option(name: .setting(.mfaPhoneTemplate), help: .setting(.mfaPhoneTemplate)) var mfaPhoneTemplate: String?
    @Option(name: .setting(.mfaPhoneMaxFrequency), help: .setting(.mfaPhoneMaxFrequency)) var mfaPhoneMaxFrequency: String?
    @Flag(name: .setting(.emailEnabled), inversion: .prefixedNo, help: .setting(.emailEnabled)) var emailEnabled: Bool?
    @Flag(name: .setting(.phoneEnabled), help: .setting(.phoneEnabled)) var phoneEnabled = false
    @Flag(name: .setting(.smsAutoconfirm), help: .setting(.smsAutoconfirm)) var smsAutoconfirm = false
    @Option(name: .setting(.smsOTPExp), help: .setting(.smsOTPExp)) var smsOTPExp: String?
    @Option(name: .setting(.smsOTPLength), help: .setting(.smsOTPLength)) var smsOTPLength: String?
    @Option(name: .setting(.smsMaxFrequency), help: .setting(.smsMaxFrequency)) var smsMaxFrequency: String?
    @Option(name: .setting(.smsTemplate), help: .setting(.smsTemplate)) var smsTemplate: String?
    @Option(name: .setting(.smsTestOTP), help: .setting(.smsTestOTP)) var smsTestOTP: String?
    @Option(name: .setting(.smsTestOTPValidUntil), help: .setting(.smsTestOTPValidUntil)) var smsTestOTPValidUntil: String?
    @Option(name: .setting(.smsProvider), help: .setting(.smsProvider)) var smsProvider: String?
    @Option(name: .setting(.smsTwilioAccountSID), help: .setting(.smsTwilioAccountSID)) var smsTwilioAccountSID: String?
    @Option(name: .setting(.smsTwilioMessageServiceSID), help: .setting(.smsTwilioMessageServiceSID)) var smsTwilioMessageServiceSID: String?
    @Option(name: .setting(.smsTwilioContentSID), help: .setting(.smsTwilioContentSID)) var smsTwilioContentSID: String?
    @Option(name: .setting(.smsTwilioVerifyAccountSID), help: .setting(.smsTwilioVerifyAccountSID)) var smsTwilioVerifyAccountSID: String?
    @Option(name: .setting(.smsTwilioVerifyMessageServiceSID), help: .setting(.smsTwilioVerifyMessageServiceSID))
    var smsTwilioVerifyMessageServiceSID: String?
    @Option(name: .setting(.smsMessageBirdOriginator), help: .setting(.smsMessageBirdOriginator)) var smsMessageBirdOriginator: String?
    @Option(name: .setting(.smsVonageAPIKey), help: .setting(.smsVonageAPIKey)) var smsVonageAPIKey: String?
    @Option(name: .setting(.smsVonageFrom), help: .setting(.smsVonageFrom)) var smsVonageFrom: String?
    @Option(name: .setting(.smsTextlocalSender), help: .setting(.smsTextlocalSender)) var smsTextlocalSender: String?
    @Option(name: .setting(.rateLimitSMS), help: .setting(.rateLimitSMS)) var smsLimit: String?
    @Option(name: .setting(.rateLimitPasskey), help: .setting(.rateLimitPasskey)) var passkeyLimit: String?
    @Flag(name: .setting(.passkeysEnabled), help: .setting(.passkeysEnabled)) var passkeysEnabled = false
    @Option(name: .setting(.passkeysPerUser), help: .setting(.passkeysPerUser)) var passkeysPerUser: String?
    @Option(name: .setting(.webAuthnRPID), help: .setting(.webAuthnRPID)) var webAuthnRPID: String?
    @Option(name: .setting(.webAuthnRPDisplayName), help: .setting(.webAuthnRPDisplayName)) var webAuthnRPDisplayName: String?
    @Option(name: .setting(.webAuthnRPOrigins), help: .setting(.webAuthnRPOrigins)) var webAuthnRPOrigins: String?
    @Option(name: .setting(.webAuthnChallengeExpiry), help: .setting(.webAuthnChallengeExpiry)) var webAuthnChallengeExpiry: String?
    @Option(name: .setting(.appleAppIDs), help: .setting(.appleAppIDs)) var appleAppIDs: String?
    @Option(name: .setting(.smtpURL), help: .setting(.smtpURL)) var smtpURL: String?
    @Option(name: .setting(.mailFrom), help: .setting(.mailFrom)) var mailFrom: String?
    @Option(name: .setting(.pageTemplates), help: .setting(.pageTemplates)) var pageTemplates: String?
    @Option(name: .setting(.mailTemplates), help: .setting(.mailTemplates)) var mailTemplates: String?
    @Option(name: .setting(.logLevel), help: .setting(.logLevel)) var logLevel: String?
    @Option(name: .setting(.logFormat), help: .setting(.logFormat)) var logFormat: String?
    @Option(name: .setting(.trustedProxy), help: .setting(.trustedProxy)) var trustedProxies: [String] = []
    @Option(name: .setting(.metricsToken), help: .setting(.metricsToken)) var metricsToken: String?
    @Option(name: .setting(.metricsEnabled), help: .setting(.metricsEnabled)) var metricsEnabled: String?
    @Option(name: .setting(.jwtKeys), help: .setting(.jwtKeys)) var jwtKeys: String?
    @Option(name: .setting(.jwtKeysFile), help: .setting(.jwtKeysFile)) var jwtKeysFile: String?
    @Option(name: .setting(.databaseURLFile), help: .setting(.databaseURLFile)) var databaseURLFile: String?
    @Flag(name: .setting(.allowLoopbackProviders), help: .setting(.allowLoopbackProviders)) var allowLoopbackProviders = false
    @Option(name: .setting(.firebaseProjectID), help: .setting(.firebaseProjectID)) var firebaseProjectID: String?
    @Flag(
        name: .customLong("check"),
        help: """
            Check the settings and exit without starting: a setting the server refuses is an error (non-zero exit); \
            the warnings a start would log (settings GoTrue starts with but that leave a feature failing) are \
            printed, and alone they exit 0.
            """)
    var check = false

    /// What the command line gave, by setting: the one place the options above are read.
    var commandLine: [String: ServerSetting.Value] {
        var values: [String: ServerSetting.Value] = [:]
        func add(_ setting: ServerSetting, _ value: ServerSetting.Value?) { values[setting.id] = value }
        add(.host, .given(host))
        add(.port, .given(port))
        add(.dataDirectory, .given(data.dataDirectory))
        add(.autoconfirm, .given(autoconfirm))
        add(.disableSignup, .given(disableSignup))
        add(.siteURL, .given(siteURL))
        add(.externalURL, .given(externalURL))
        add(.redirectURL, .given(redirectURLs))
        add(.accessTokenTTL, .given(accessTokenTTL))
        add(.jwtAdminRole, .given(jwtAdminRoles))
        add(.corsAllowedOrigins, .given(corsAllowedOrigins))
        add(.corsAllowedHeaders, .given(corsAllowedHeaders))
        add(.refreshReuseInterval, .given(refreshReuseInterval))
        add(.sessionTimebox, .given(sessionTimebox))
        add(.sessionInactivityTimeout, .given(sessionInactivityTimeout))
        add(.cleanupInterval, .given(cleanupInterval))
        add(.responsePaddingFloor, .given(responsePaddingFloor))
        add(.refreshTokenRetention, .given(refreshTokenRetention))
        add(.auditRetention, .given(auditRetention))
        add(.idleTimeout, .given(idleTimeout))
        add(.maxConnections, .given(maxConnections))
        add(.database, .given(database))
        add(.databasePoolSize, .given(databasePoolSize))
        add(.databaseTimeout, .given(databaseTimeout))
        add(.enableAnonymousUsers, .given(enableAnonymousUsers))
        add(.securePasswordChange, .given(securePasswordChange))
        add(.allowSelfDeletion, .given(allowSelfDeletion))
        add(.emailCodeTTL, .given(emailCodeTTL))
        add(.passwordMinLength, .given(passwordMinLength))
        add(.passwordRequiredCharacters, .given(passwordRequiredCharacters))
        add(.passwordLeakCheck, .given(passwordLeakCheck))
        add(.passwordLeakCheckFailClosed, .given(passwordLeakCheckFailClosed))
        add(.captchaEnabled, .given(captchaEnabled))
        add(.captchaProvider, .given(captchaProvider))
        add(.hookCustomAccessTokenEnabled, .given(hookCustomAccessTokenEnabled))
        add(.hookCustomAccessTokenURI, .given(hookCustomAccessTokenURI))
        add(.hookBeforeUserCreatedEnabled, .given(hookBeforeUserCreatedEnabled))
        add(.hookBeforeUserCreatedURI, .given(hookBeforeUserCreatedURI))
        add(.hookPasswordVerificationAttemptEnabled, .given(hookPasswordVerificationAttemptEnabled))
        add(.hookPasswordVerificationAttemptURI, .given(hookPasswordVerificationAttemptURI))
        add(.hookMFAVerificationAttemptEnabled, .given(hookMFAVerificationAttemptEnabled))
        add(.hookMFAVerificationAttemptURI, .given(hookMFAVerificationAttemptURI))
        add(.hookSendSMSEnabled, .given(hookSendSMSEnabled))
        add(.hookSendSMSURI, .given(hookSendSMSURI))
        add(.hookSendEmailEnabled, .given(hookSendEmailEnabled))
        add(.hookSendEmailURI, .given(hookSendEmailURI))
        add(.hookAfterUserCreatedEnabled, .given(hookAfterUserCreatedEnabled))
        add(.hookAfterUserCreatedURI, .given(hookAfterUserCreatedURI))
        add(.bcryptCost, .given(bcryptCost))
        add(.noRateLimits, .given(noRateLimits))
        add(.rateLimitSignIn, .given(signInLimit))
        add(.rateLimitFailedPassword, .given(failedPasswordLimit))
        add(.rateLimitEmail, .given(emailLimit))
        add(.rateLimitRefresh, .given(refreshLimit))
        add(.rateLimitVerify, .given(verifyLimit))
        add(.rateLimitAddressChanges, .given(addressChangeLimit))
        add(.rateLimitMFA, .given(mfaLimit))
        add(.rateLimitFailedMFACode, .given(failedMFACodeLimit))
        add(.mfaMaxEnrolledFactors, .given(mfaMaxEnrolledFactors))
        add(.mfaMaxVerifiedFactors, .given(mfaMaxVerifiedFactors))
        add(.mfaChallengeExpiry, .given(mfaChallengeExpiry))
        add(.mfaFactorExpiry, .given(mfaFactorExpiry))
        add(.requireCurrentPassword, .given(requireCurrentPassword))
        add(.mailerSecureEmailChange, .given(mailerSecureEmailChange))
        add(.mailerNotificationsPasswordChanged, .given(mailerNotificationsPasswordChanged))
        add(.mailerNotificationsEmailChanged, .given(mailerNotificationsEmailChanged))
        add(.mailerNotificationsPhoneChanged, .given(mailerNotificationsPhoneChanged))
        add(.mailerNotificationsIdentityLinked, .given(mailerNotificationsIdentityLinked))
        add(.mailerNotificationsIdentityUnlinked, .given(mailerNotificationsIdentityUnlinked))
        add(.mailerNotificationsMfaFactorEnrolled, .given(mailerNotificationsMfaFactorEnrolled))
        add(.mailerNotificationsMfaFactorUnenrolled, .given(mailerNotificationsMfaFactorUnenrolled))
        add(.mfaTOTPEnroll, .given(mfaTotpEnroll))
        add(.mfaTOTPVerify, .given(mfaTotpVerify))
        add(.mfaWebAuthnEnroll, .given(mfaWebAuthnEnroll))
        add(.mfaWebAuthnVerify, .given(mfaWebAuthnVerify))
        add(.mfaPhoneEnroll, .given(mfaPhoneEnroll))
        add(.mfaPhoneVerify, .given(mfaPhoneVerify))
        add(.mfaPhoneOTPLength, .given(mfaPhoneOTPLength))
        add(.mfaPhoneTemplate, .given(mfaPhoneTemplate))
        add(.mfaPhoneMaxFrequency, .given(mfaPhoneMaxFrequency))
        add(.emailEnabled, .given(emailEnabled))
        add(.phoneEnabled, .given(phoneEnabled))
        add(.smsAutoconfirm, .given(smsAutoconfirm))
        add(.smsOTPExp, .given(smsOTPExp))
        add(.smsOTPLength, .given(smsOTPLength))
        add(.smsMaxFrequency, .given(smsMaxFrequency))
        add(.smsTemplate, .given(smsTemplate))
        add(.smsTestOTP, .given(smsTestOTP))
        add(.smsTestOTPValidUntil, .given(smsTestOTPValidUntil))
        add(.smsProvider, .given(smsProvider))
        add(.smsTwilioAccountSID, .given(smsTwilioAccountSID))
        add(.smsTwilioMessageServiceSID, .given(smsTwilioMessageServiceSID))
        add(.smsTwilioContentSID, .given(smsTwilioContentSID))
        add(.smsTwilioVerifyAccountSID, .given(smsTwilioVerifyAccountSID))
        add(.smsTwilioVerifyMessageServiceSID, .given(smsTwilioVerifyMessageServiceSID))
        add(.smsMessageBirdOriginator, .given(smsMessageBirdOriginator))
        add(.smsVonageAPIKey, .given(smsVonageAPIKey))
        add(.smsVonageFrom, .given(smsVonageFrom))
        add(.smsTextlocalSender, .given(smsTextlocalSender))
        add(.rateLimitSMS, .given(smsLimit))
        add(.rateLimitPasskey, .given(passkeyLimit))
        add(.passkeysEnabled, .given(passkeysEnabled))
        add(.passkeysPerUser, .given(passkeysPerUser))
        add(.webAuthnRPID, .given(webAuthnRPID))
        add(.webAuthnRPDisplayName, .given(webAuthnRPDisplayName))
        add(.webAuthnRPOrigins, .given(webAuthnRPOrigins))
        add(.webAuthnChallengeExpiry, .given(webAuthnChallengeExpiry))
        add(.appleAppIDs, .given(appleAppIDs))
        add(.smtpURL, .given(smtpURL))
        add(.mailFrom, .given(mailFrom))
        add(.pageTemplates, .given(pageTemplates))
        add(.mailTemplates, .given(mailTemplates))
        add(.logLevel, .given(logLevel))
        add(.logFormat, .given(logFormat))
        add(.trustedProxy, .given(trustedProxies))
        add(.metricsToken, .given(metricsToken))
        add(.metricsEnabled, .given(metricsEnabled))
        add(.jwtKeys, .given(jwtKeys))
        add(.jwtKeysFile, .given(jwtKeysFile))
        add(.databaseURLFile, .given(databaseURLFile))
        add(.allowLoopbackProviders, .given(allowLoopbackProviders))
        add(.firebaseProjectID, .given(firebaseProjectID))
        return values
    }

    /// `--check`: the refusal a start would meet (an error, exit 1), else the warnings it would
    /// log, one a line on standard output, and exit 0.
    static func printCheck(_ settings: Settings) throws {
        let warnings: [String]
        do {
            warnings = try LatchkeyApplication.check(configuration: settings.configuration)
        } catch {
            let variables = settings.resolution.variables
            let origin = variables.isEmpty ? "" : "\n(settings from the environment: \(variables.joined(separator: ", ")))"
            throw ValidationError(error.namingSetting().description + origin)
        }
        for warning in warnings { print("warning: \(warning)") }
        print(
            warnings.isEmpty
                ? "latchkey serve --check: the settings are usable, with no warnings"
                : "latchkey serve --check: the settings are usable, with \(warnings.count) warning\(warnings.count == 1 ? "" : "s")")
    }

    /// The settings declared as options here: every setting with a flag (a test checks them against `commandLine`).
    static var optionSettings: [ServerSetting] { ServerSetting.all.filter { $0.flag != nil } }

    func validate() throws {
        if database != nil, databaseURLFile != nil { throw ValidationError("give the database URL once: --database or --database-url-file") }
        if jwtKeys != nil, jwtKeysFile != nil { throw ValidationError("give the JWT keys once: --jwt-keys or --jwt-keys-file") }
    }

    /// What the server runs with: the command line, else the environment (Latchkey's names, then
    /// GoTrue's), else the defaults; read once.
    struct Settings {
        var configuration: ServerConfiguration
        var logLevel: Logger.Level
        var logFormat: LogFormat
        /// Each given setting's value and where it came from.
        var resolution: ServerSetting.Resolution
    }

    func settings(environment: [String: String]) throws(ConfigurationError) -> Settings {
        let resolution = try ServerSetting.resolve(ServerSetting.all, commandLine: commandLine, environment: environment)
        var configuration = ServerConfiguration(dataDirectory: DataOptions.url(resolution.text(ServerSetting.dataDirectory.id)))
        try resolution.apply(ServerSetting.all, to: &configuration)
        let level = resolution.text(ServerSetting.logLevel.id) ?? ServerSetting.logLevel.defaultDescription ?? ""
        guard let logLevel = Logger.Level(rawValue: level) else {
            throw ServerSetting.logLevel.error("must be one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let format = resolution.text(ServerSetting.logFormat.id) ?? ServerSetting.logFormat.defaultDescription ?? ""
        guard let logFormat = LogFormat(rawValue: format) else { throw ServerSetting.logFormat.error("must be text or json") }
        return Settings(configuration: configuration, logLevel: logLevel, logFormat: logFormat, resolution: resolution)
    }

    func run() async throws {
        // Everything the server writes (database, secret, outbox) is for its owner only.
        umask(0o077)
        let settings: Settings
        do {
            settings = try self.settings(environment: ProcessInfo.processInfo.environment)
        } catch {
            throw ValidationError(error.description)
        }
        if check {
            try Self.printCheck(settings)
            return
        }
        settings.logFormat.bootstrap()
        var logger = Logger(label: "latchkey")
        logger.logLevel = settings.logLevel
        let configuration = settings.configuration
        logEffectiveSettings(settings, logger: logger)
        do {
            if !configuration.rateLimits.enabled { logger.warning("rate limits are OFF (--no-rate-limits): use this for benchmarks only") }
            try await LatchkeyApplication.run(configuration: configuration, logger: logger)
        } catch let error as ConfigurationError {
            let variables = settings.resolution.variables
            let origin = variables.isEmpty ? "" : "\n(settings from the environment: \(variables.joined(separator: ", ")))"
            throw ValidationError(error.namingSetting().description + origin)
        } catch let exit as ExitCode {
            throw exit
        } catch {
            // A port in use, a data directory that cannot be written, a database that cannot be
            // reached: one plain sentence naming the fix, without a usage text or raw error.
            throw ServeStartFailure.exit(error, configuration: configuration, logger: logger)
        }
    }
}
