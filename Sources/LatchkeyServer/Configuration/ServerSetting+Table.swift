import Foundation

/// Every setting of `latchkey serve`, in the order `--help` lists them. GoTrue's names are from
/// its `internal/conf/configuration.go` (envconfig with the prefix `GOTRUE_`; a few also
/// unprefixed), each with how its value converts.
extension ServerSetting {
    package static let host = ServerSetting(
        "host", \.host, .text, variables: [Variable("GOTRUE_API_HOST")], help: "Interface to listen on.")
    package static let port = ServerSetting(
        "port", \.port, .integer, variables: [Variable("GOTRUE_API_PORT"), Variable("PORT")], help: "Port to listen on (0 picks a free port).")
    /// The data directory: the configuration is made with it, so it has no ``store``.
    package static let dataDirectory = ServerSetting(
        "data-dir", help: "Folder for the SQLite database, the generated JWT secret and the mail outbox (created 0700).",
        defaultText: { _ in defaultDataDirectory }, store: nil)
    package static let autoconfirm = ServerSetting(
        "autoconfirm", \.autoconfirm, .switch, variables: [Variable("GOTRUE_MAILER_AUTOCONFIRM")],
        help: "Confirm new sign-ups without an email round trip.")
    package static let disableSignup = ServerSetting(
        "disable-signup", \.disableSignup, .switch, variables: [Variable("GOTRUE_DISABLE_SIGNUP")],
        help: "Refuse new sign-ups (admins can still create users).")
    package static let siteURL = ServerSetting(
        "site-url", \.siteURL, .optionalText, variables: [Variable("GOTRUE_SITE_URL")],
        help: "Where links in emails finally send the user (default: the server's own URL).")
    package static let externalURL = ServerSetting(
        "external-url", \.externalURL, .optionalText, variables: [Variable("GOTRUE_API_EXTERNAL_URL"), Variable("API_EXTERNAL_URL")],
        help: "The server's public URL, for links and the token issuer (default: http://HOST:PORT).")
    package static let redirectURL = ServerSetting(
        "redirect-url", \.additionalRedirectURLs, .list, variables: [Variable("GOTRUE_URI_ALLOW_LIST")],
        help: "A further URL that redirect_to may point at (repeatable).")
    package static let accessTokenTTL = ServerSetting(
        "access-token-ttl", \.accessTokenTTL, .seconds, variables: [Variable("GOTRUE_JWT_EXP", .positiveInteger)],
        help:
            "Access-token lifetime in seconds (at least 1). Supabase clients treat a token with under 30 s left as expired, so below a minute they refresh on nearly every call; the server warns under 60 s."
    )
    package static let jwtAdminRole = ServerSetting(
        "jwt-admin-role", \.jwtAdminRoles, .roles, variables: [Variable("GOTRUE_JWT_ADMIN_ROLES")],
        help: "A role whose API keys may use /admin (repeatable).")
    package static let corsAllowedOrigins = ServerSetting(
        "cors-allowed-origins", \.corsAllowedOrigins, .commaList,
        help: "Origins browsers may call from, comma-separated, one * wildcard each (default: every origin, as GoTrue).")
    package static let corsAllowedHeaders = ServerSetting(
        "cors-allowed-headers", \.corsAllowedHeaders, .commaList, variables: [Variable("GOTRUE_CORS_ALLOWED_HEADERS")],
        help: "Request headers allowed cross-origin besides GoTrue's defaults and apikey, comma-separated.")
    package static let refreshReuseInterval = ServerSetting(
        "refresh-reuse-interval", \.refreshReuseInterval, .seconds, variables: [Variable("GOTRUE_SECURITY_REFRESH_TOKEN_REUSE_INTERVAL")],
        help: "Seconds a just-spent refresh token still yields the active one.")
    package static let sessionTimebox = ServerSetting(
        "session-timebox", \.sessionTimebox, .optionalSeconds, variables: [Variable("GOTRUE_SESSIONS_TIMEBOX", .duration)],
        help: "Maximum session age in seconds (default: unlimited).")
    package static let sessionInactivityTimeout = ServerSetting(
        "session-inactivity-timeout", \.sessionInactivityTimeout, .optionalSeconds,
        variables: [Variable("GOTRUE_SESSIONS_INACTIVITY_TIMEOUT", .duration)],
        help: "Seconds a session may go without a refresh before it expires (default: unlimited).")
    package static let cleanupInterval = ServerSetting(
        "cleanup-interval", \.cleanupInterval, .seconds,
        help: "Seconds between runs of the task deleting spent tokens, ended sessions, expired links and old audit entries (0: off).")
    package static let responsePaddingFloor = ServerSetting(
        "response-padding-floor", \.responsePaddingFloor, .number,
        help:
            "Seconds every answer of /recover, /otp, /magiclink, /resend and an unconfirmed /signup takes at least, sent or not (padded above this floor and the slowest recent send, so the timing names no account; 0 to 10)."
    )
    package static let refreshTokenRetention = ServerSetting(
        "refresh-token-retention", \.refreshTokenRetention, .seconds,
        help: "Seconds a spent refresh token is kept (the active token and its parent always are).")
    package static let auditRetention = ServerSetting(
        "audit-retention", \.auditRetention, .seconds, help: "Seconds audit entries are kept.")
    package static let idleTimeout = ServerSetting(
        "idle-timeout", \.idleTimeout, .seconds, help: "Seconds a connection may stay idle, and the longest a request may take to arrive.")
    package static let maxConnections = ServerSetting(
        "max-connections", \.maximumConnections, .optionalInteger,
        help: "Most connections served at once; more wait (default: the open-file limit less 128, at most 10000).")
    package static let database = ServerSetting(
        "database", \.databaseURL, .optionalText,
        variables: [Variable("LATCHKEY_DATABASE_URL"), Variable("GOTRUE_DB_DATABASE_URL"), Variable("DATABASE_URL")],
        help:
            "Database URL: sqlite://PATH (default sqlite://<data-dir>/latchkey.sqlite) or postgres://USER[:PASSWORD]@HOST[:PORT]/DB[?sslmode=require] to share one database between several instances.",
        isSecret: true)
    package static let databasePoolSize = ServerSetting(
        "database-pool-size", \.databasePoolSize, .integer, variables: [Variable("GOTRUE_DB_MAX_POOL_SIZE", .positiveInteger)],
        help: "PostgreSQL: most connections this instance opens.")
    package static let databaseTimeout = ServerSetting(
        "database-timeout", \.databaseTimeout, .number,
        help: "PostgreSQL: seconds a request waits for a connection before it is answered 503.")
    package static let enableAnonymousUsers = ServerSetting(
        "enable-anonymous-users", \.enableAnonymousUsers, .switch, variables: [Variable("GOTRUE_EXTERNAL_ANONYMOUS_USERS_ENABLED")],
        help: "Let POST /signup without an email sign in an anonymous user.")
    package static let securePasswordChange = ServerSetting(
        "secure-password-change", \.securePasswordChange, .switch,
        variables: [Variable("GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_REAUTHENTICATION")],
        help: "Changing the password from a session older than 24 h needs the nonce mailed by GET /reauthenticate.")
    package static let allowSelfDeletion = ServerSetting(
        "allow-self-deletion", \.allowSelfDeletion, .switch,
        help:
            "Let a signed-in user delete their own account (DELETE /user) after a recent reauthentication: the nonce from GET /reauthenticate, or AAL2 when a factor is enrolled."
    )
    package static let requireCurrentPassword = ServerSetting(
        "require-current-password", \.requireCurrentPassword, .switch,
        variables: [Variable("GOTRUE_SECURITY_UPDATE_PASSWORD_REQUIRE_CURRENT_PASSWORD")],
        help: "A new password needs the current one (current_password), except in a session started by a recovery link or code.")
    package static let mailerSecureEmailChange = ServerSetting(
        "mailer-secure-email-change", \.secureEmailChange, .onOff, variables: [Variable("GOTRUE_MAILER_SECURE_EMAIL_CHANGE_ENABLED")],
        help: "An email change needs the link or code mailed to the current address as well as the one mailed to the new address.")
    package static let mailerNotificationsPasswordChanged = ServerSetting(
        "mailer-notifications-password-changed", \.notifications.passwordChanged, .switch,
        variables: [Variable("GOTRUE_MAILER_NOTIFICATIONS_PASSWORD_CHANGED_ENABLED")],
        help: "Mail the account's address a notice when the password was changed.")
    package static let mailerNotificationsEmailChanged = ServerSetting(
        "mailer-notifications-email-changed", \.notifications.emailChanged, .switch,
        variables: [Variable("GOTRUE_MAILER_NOTIFICATIONS_EMAIL_CHANGED_ENABLED")],
        help: "Mail the account's address a notice when the email address was changed (mailed to the previous address).")
    package static let mailerNotificationsPhoneChanged = ServerSetting(
        "mailer-notifications-phone-changed", \.notifications.phoneChanged, .switch,
        variables: [Variable("GOTRUE_MAILER_NOTIFICATIONS_PHONE_CHANGED_ENABLED")],
        help: "Mail the account's address a notice when the phone number was changed.")
    package static let mailerNotificationsIdentityLinked = ServerSetting(
        "mailer-notifications-identity-linked", \.notifications.identityLinked, .switch,
        variables: [Variable("GOTRUE_MAILER_NOTIFICATIONS_IDENTITY_LINKED_ENABLED")],
        help: "Mail the account's address a notice when an identity was linked.")
    package static let mailerNotificationsIdentityUnlinked = ServerSetting(
        "mailer-notifications-identity-unlinked", \.notifications.identityUnlinked, .switch,
        variables: [Variable("GOTRUE_MAILER_NOTIFICATIONS_IDENTITY_UNLINKED_ENABLED")],
        help: "Mail the account's address a notice when an identity was unlinked.")
    package static let mailerNotificationsMfaFactorEnrolled = ServerSetting(
        "mailer-notifications-mfa-factor-enrolled", \.notifications.mfaFactorEnrolled, .switch,
        variables: [Variable("GOTRUE_MAILER_NOTIFICATIONS_MFA_FACTOR_ENROLLED_ENABLED")],
        help: "Mail the account's address a notice when an MFA factor was verified for the first time.")
    package static let mailerNotificationsMfaFactorUnenrolled = ServerSetting(
        "mailer-notifications-mfa-factor-unenrolled", \.notifications.mfaFactorUnenrolled, .switch,
        variables: [Variable("GOTRUE_MAILER_NOTIFICATIONS_MFA_FACTOR_UNENROLLED_ENABLED")],
        help: "Mail the account's address a notice when an MFA factor was removed.")
    package static let emailCodeTTL = ServerSetting(
        "email-code-ttl", \.emailCodeTTL, .seconds, variables: [Variable("GOTRUE_MAILER_OTP_EXP", .positiveInteger)],
        help: "Seconds an emailed six-digit code stays valid.")
    package static let passwordMinLength = ServerSetting(
        "password-min-length", \.minimumPasswordLength, .integer, variables: [Variable("GOTRUE_PASSWORD_MIN_LENGTH", .positiveInteger)],
        help: "Minimum password length.")
    package static let passwordRequiredCharacters = ServerSetting(
        "password-required-characters", \.passwordRequiredCharacters, .characterSets,
        variables: [Variable("GOTRUE_PASSWORD_REQUIRED_CHARACTERS")],
        help:
            "Sets of characters a new password must each use one of, separated by colons as GoTrue's (abcdefghijklmnopqrstuvwxyz:ABCDEFGHIJKLMNOPQRSTUVWXYZ:0123456789; \\: for a colon)."
    )
    package static let captchaEnabled = ServerSetting(
        "captcha-enabled", \.captcha.enabled, .switch, variables: [Variable("GOTRUE_SECURITY_CAPTCHA_ENABLED")],
        help:
            "Require a CAPTCHA token (gotrue_meta_security.captcha_token) on sign-up, password sign-in, /otp, /magiclink, /recover, /resend and passkey sign-in; needs GOTRUE_SECURITY_CAPTCHA_SECRET."
    )
    package static let captchaProvider = ServerSetting(
        "captcha-provider", \.captcha.provider, .text, variables: [Variable("GOTRUE_SECURITY_CAPTCHA_PROVIDER")],
        help: "hcaptcha or turnstile (Cloudflare).")
    package static let captchaSecret = ServerSetting(
        environment: "LATCHKEY_CAPTCHA_SECRET", or: ["GOTRUE_SECURITY_CAPTCHA_SECRET"], \.captcha.secret, .optionalText,
        help: "The CAPTCHA provider's secret key.", isSecret: true)
    package static let hookCustomAccessTokenEnabled = ServerSetting(
        "hook-custom-access-token-enabled", \.hooks.customAccessToken.enabled, .switch,
        variables: [Variable("GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_ENABLED")],
        help:
            "Send the claims of every access token issued to the custom access token hook and sign what it answers; needs its URI and GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_SECRETS."
    )
    package static let hookCustomAccessTokenURI = hookURI("custom-access-token", \.customAccessToken, title: "custom access token")
    package static let hookCustomAccessTokenSecrets = hookSecrets("custom-access-token", \.customAccessToken, title: "custom access token")
    package static let hookBeforeUserCreatedEnabled = ServerSetting(
        "hook-before-user-created-enabled", \.hooks.beforeUserCreated.enabled, .switch,
        variables: [Variable("GOTRUE_HOOK_BEFORE_USER_CREATED_ENABLED")],
        help:
            "Send every new account (sign-up, one-time code, a provider's first sign-in, invitation) to the before user created hook before it is stored; its error refuses it. Needs its URI and GOTRUE_HOOK_BEFORE_USER_CREATED_SECRETS."
    )
    package static let hookBeforeUserCreatedURI = hookURI("before-user-created", \.beforeUserCreated, title: "before user created")
    package static let hookBeforeUserCreatedSecrets = hookSecrets("before-user-created", \.beforeUserCreated, title: "before user created")
    package static let hookPasswordVerificationAttemptEnabled = ServerSetting(
        "hook-password-verification-attempt-enabled", \.hooks.passwordVerificationAttempt.enabled, .switch,
        variables: [Variable("GOTRUE_HOOK_PASSWORD_VERIFICATION_ATTEMPT_ENABLED")],
        help:
            "Send every password sign-in of an existing account, right or wrong, to the password verification attempt hook, which may refuse it. Needs its URI and GOTRUE_HOOK_PASSWORD_VERIFICATION_ATTEMPT_SECRETS."
    )
    package static let hookPasswordVerificationAttemptURI = hookURI(
        "password-verification-attempt", \.passwordVerificationAttempt, title: "password verification attempt")
    package static let hookPasswordVerificationAttemptSecrets = hookSecrets(
        "password-verification-attempt", \.passwordVerificationAttempt, title: "password verification attempt")
    package static let hookMFAVerificationAttemptEnabled = ServerSetting(
        "hook-mfa-verification-attempt-enabled", \.hooks.mfaVerificationAttempt.enabled, .switch,
        variables: [Variable("GOTRUE_HOOK_MFA_VERIFICATION_ATTEMPT_ENABLED")],
        help:
            "Send every TOTP or phone factor code checked, right or wrong, to the MFA verification attempt hook, which may refuse it (and end the user's sessions). Needs its URI and GOTRUE_HOOK_MFA_VERIFICATION_ATTEMPT_SECRETS."
    )
    package static let hookMFAVerificationAttemptURI = hookURI(
        "mfa-verification-attempt", \.mfaVerificationAttempt, title: "MFA verification attempt")
    package static let hookMFAVerificationAttemptSecrets = hookSecrets(
        "mfa-verification-attempt", \.mfaVerificationAttempt, title: "MFA verification attempt")
    package static let hookSendSMSEnabled = ServerSetting(
        "hook-send-sms-enabled", \.hooks.sendSMS.enabled, .switch, variables: [Variable("GOTRUE_HOOK_SEND_SMS_ENABLED")],
        help:
            "Send every SMS code (sign-in, phone change, phone factor challenge) to the send SMS hook instead of the SMS provider, which it replaces. Needs its URI and GOTRUE_HOOK_SEND_SMS_SECRETS."
    )
    package static let hookSendSMSURI = hookURI("send-sms", \.sendSMS, title: "send SMS")
    package static let hookSendSMSSecrets = hookSecrets("send-sms", \.sendSMS, title: "send SMS")
    package static let hookSendEmailEnabled = ServerSetting(
        "hook-send-email-enabled", \.hooks.sendEmail.enabled, .switch, variables: [Variable("GOTRUE_HOOK_SEND_EMAIL_ENABLED")],
        help:
            "Send every email (confirmation, invitation, magic link, recovery, email change, reauthentication, account-change notices) to the send email hook instead of the mailer. Needs its URI and GOTRUE_HOOK_SEND_EMAIL_SECRETS."
    )
    package static let hookSendEmailURI = hookURI("send-email", \.sendEmail, title: "send email")
    package static let hookSendEmailSecrets = hookSecrets("send-email", \.sendEmail, title: "send email")
    package static let hookAfterUserCreatedEnabled = ServerSetting(
        "hook-after-user-created-enabled", \.hooks.afterUserCreated.enabled, .switch, variables: [Variable("GOTRUE_HOOK_AFTER_USER_CREATED_ENABLED")],
        help:
            "Send every new account, once stored, to the after user created hook; its error is the answer (the account stays). Needs its URI and GOTRUE_HOOK_AFTER_USER_CREATED_SECRETS."
    )
    package static let hookAfterUserCreatedURI = hookURI("after-user-created", \.afterUserCreated, title: "after user created")
    package static let hookAfterUserCreatedSecrets = hookSecrets("after-user-created", \.afterUserCreated, title: "after user created")
    package static let passwordLeakCheck = ServerSetting(
        "password-hibp-enabled", \.passwordLeakCheck, .switch, variables: [Variable("GOTRUE_PASSWORD_HIBP_ENABLED")],
        help: "Refuse new passwords found in known breaches (Have I Been Pwned's Pwned Passwords; only a 5-character SHA-1 prefix is sent).")
    package static let passwordLeakCheckFailClosed = ServerSetting(
        "password-hibp-fail-closed", \.passwordLeakCheckFailClosed, .switch, variables: [Variable("GOTRUE_PASSWORD_HIBP_FAIL_CLOSED")],
        help: "With --password-hibp-enabled, refuse new passwords while Pwned Passwords cannot be asked (otherwise they are allowed).")
    package static let bcryptCost = ServerSetting("bcrypt-cost", \.bcryptCost, .integer, help: "bcrypt cost for new password hashes.")
    package static let noRateLimits = ServerSetting(
        "no-rate-limits", \.rateLimits.enabled, .switchOff, help: "Turn rate limits off (benchmarks only).")
    package static let rateLimitSignIn = ServerSetting(
        "rate-limit-signin", \.rateLimits.signInsPerIP.count, .rateLimit, help: "Sign-in and sign-up requests per IP per 5 minutes.")
    package static let rateLimitFailedPassword = ServerSetting(
        "rate-limit-failed-password", \.rateLimits.failedPasswordAttemptsPerAccount.count, .rateLimit,
        help: "Failed password attempts per account per 5 minutes.")
    package static let rateLimitEmail = ServerSetting(
        "rate-limit-email", \.rateLimits.emailsPerAddress.count, .rateLimit, help: "Emails per address per hour.")
    package static let rateLimitRefresh = ServerSetting(
        "rate-limit-refresh", \.rateLimits.refreshesPerSession.count, .rateLimit, help: "Refreshes per session per 5 minutes.")
    package static let rateLimitVerify = ServerSetting(
        "rate-limit-verify", \.rateLimits.verificationsPerIP.count, .rateLimit, variables: [Variable("GOTRUE_RATE_LIMIT_VERIFY", .positiveInteger)],
        help: "Email-link, code and PKCE verifications per IP per 5 minutes.")
    package static let rateLimitAddressChanges = ServerSetting(
        "rate-limit-address-changes", \.rateLimits.addressChangesPerUser.count, .rateLimit,
        help: "New email addresses and phone numbers a user may ask for per hour (taken ones count too).")
    package static let rateLimitMFA = ServerSetting(
        "rate-limit-mfa", \.rateLimits.mfaRequestsPerIP.count, .rateLimit,
        variables: [Variable("GOTRUE_MFA_RATE_LIMIT_CHALLENGE_AND_VERIFY", .positiveInteger)],
        help: "MFA challenges and verifications per IP per minute.")
    package static let rateLimitFailedMFACode = ServerSetting(
        "rate-limit-failed-mfa-code", \.rateLimits.failedMFACodesPerFactor.count, .rateLimit,
        help: "Wrong MFA (TOTP) codes per factor per 5 minutes.")
    package static let mfaMaxEnrolledFactors = ServerSetting(
        "mfa-max-enrolled-factors", \.mfa.maxEnrolledFactors, .integer,
        variables: [Variable("GOTRUE_MFA_MAX_ENROLLED_FACTORS", .positiveInteger)],
        help: "Most MFA factors, verified or not, one user may have.")
    package static let mfaMaxVerifiedFactors = ServerSetting(
        "mfa-max-verified-factors", \.mfa.maxVerifiedFactors, .integer,
        variables: [Variable("GOTRUE_MFA_MAX_VERIFIED_FACTORS", .positiveInteger)],
        help: "Most verified MFA factors one user may have.")
    package static let mfaChallengeExpiry = ServerSetting(
        "mfa-challenge-expiry", \.mfa.challengeExpiry, .seconds,
        variables: [Variable("GOTRUE_MFA_CHALLENGE_EXPIRY_DURATION", .positiveInteger)],
        help: "Seconds an MFA challenge can be verified.")
    package static let mfaFactorExpiry = ServerSetting(
        "mfa-factor-expiry", \.mfa.factorExpiry, .seconds, variables: [Variable("GOTRUE_MFA_FACTOR_EXPIRY_DURATION", .duration)],
        help: "Seconds an enrolled MFA factor may stay unverified before it is deleted.")
    package static let mfaTOTPEnroll = ServerSetting(
        "mfa-totp-enroll", \.mfa.totpEnrollEnabled, .onOff, variables: [Variable("GOTRUE_MFA_TOTP_ENROLL_ENABLED")],
        help: "Let users enroll TOTP factors.")
    package static let mfaTOTPVerify = ServerSetting(
        "mfa-totp-verify", \.mfa.totpVerifyEnabled, .onOff, variables: [Variable("GOTRUE_MFA_TOTP_VERIFY_ENABLED")],
        help: "Let users challenge and verify TOTP factors.")
    package static let mfaWebAuthnEnroll = ServerSetting(
        "mfa-webauthn-enroll", \.mfa.webAuthnEnrollEnabled, .switch, variables: [Variable("GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED")],
        help: "Let users enroll WebAuthn factors: a security key or device as a second factor (needs --webauthn-rp-id and --webauthn-rp-origins).")
    package static let mfaWebAuthnVerify = ServerSetting(
        "mfa-webauthn-verify", \.mfa.webAuthnVerifyEnabled, .switch, variables: [Variable("GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED")],
        help: "Let users challenge and verify WebAuthn factors (needs --webauthn-rp-id and --webauthn-rp-origins).")
    package static let mfaPhoneEnroll = ServerSetting(
        "mfa-phone-enroll", \.mfa.phoneEnrollEnabled, .switch, variables: [Variable("GOTRUE_MFA_PHONE_ENROLL_ENABLED")],
        help: "Let users enroll phone factors: codes sent by SMS through --sms-provider as a second factor.")
    package static let mfaPhoneVerify = ServerSetting(
        "mfa-phone-verify", \.mfa.phoneVerifyEnabled, .switch, variables: [Variable("GOTRUE_MFA_PHONE_VERIFY_ENABLED")],
        help: "Let users challenge and verify phone factors.")
    package static let mfaPhoneOTPLength = ServerSetting(
        "mfa-phone-otp-length", \.mfa.phoneCodeLength, .integer, variables: [Variable("GOTRUE_MFA_PHONE_OTP_LENGTH", .positiveInteger)],
        help: "Digits in a phone factor's code (6 to 10).")
    package static let mfaPhoneTemplate = ServerSetting(
        "mfa-phone-template", \.mfa.phoneTemplate, .optionalText, variables: [Variable("GOTRUE_MFA_PHONE_TEMPLATE")],
        help: "A phone factor's SMS text; {{ .Code }} is replaced by the code (default: Your code is {{ .Code }}).")
    package static let mfaPhoneMaxFrequency = ServerSetting(
        "mfa-phone-max-frequency", \.mfa.phoneMaxFrequency, .seconds, variables: [Variable("GOTRUE_MFA_PHONE_MAX_FREQUENCY", .duration)],
        help: "Least seconds between two challenges of one phone factor.")
    package static let rateLimitPasskey = ServerSetting(
        "rate-limit-passkey", \.rateLimits.passkeySignInsPerIP.count, .rateLimit,
        variables: [Variable("GOTRUE_RATE_LIMIT_PASSKEY", .positiveInteger)], help: "Passkey sign-ins started per IP per 5 minutes.")
    package static let emailEnabled = ServerSetting(
        "email-enabled", \.emailEnabled, .onOff, variables: [Variable("GOTRUE_EXTERNAL_EMAIL_ENABLED")],
        help: "Let users sign up and sign in with an email address (off: email_provider_disabled, as GoTrue).")
    package static let phoneEnabled = ServerSetting(
        "phone-enabled", \.phone.enabled, .switch, variables: [Variable("GOTRUE_EXTERNAL_PHONE_ENABLED")],
        help: "Let users sign up and sign in with a phone number and codes sent by SMS.")
    package static let smsAutoconfirm = ServerSetting(
        "sms-autoconfirm", \.phone.autoconfirm, .switch, variables: [Variable("GOTRUE_SMS_AUTOCONFIRM")],
        help: "Confirm new phone sign-ups without a code.")
    package static let smsOTPExp = ServerSetting(
        "sms-otp-exp", \.phone.codeTTL, .seconds, variables: [Variable("GOTRUE_SMS_OTP_EXP", .positiveInteger)],
        help: "Seconds a code sent by SMS stays usable.")
    package static let smsOTPLength = ServerSetting(
        "sms-otp-length", \.phone.codeLength, .integer, variables: [Variable("GOTRUE_SMS_OTP_LENGTH", .positiveInteger)],
        help: "Digits in a code sent by SMS (6 to 10).")
    package static let smsMaxFrequency = ServerSetting(
        "sms-max-frequency", \.phone.maximumFrequency, .seconds, variables: [Variable("GOTRUE_SMS_MAX_FREQUENCY", .duration)],
        help: "Least seconds between two codes of one kind to one user.")
    package static let smsTemplate = ServerSetting(
        "sms-template", \.phone.template, .optionalText, variables: [Variable("GOTRUE_SMS_TEMPLATE")],
        help: "The SMS text; {{ .Code }} is replaced by the code (default: Your code is {{ .Code }}).")
    package static let smsTestOTP = ServerSetting(
        "sms-test-otp", \.phone.testCodes, .optionalText, variables: [Variable("GOTRUE_SMS_TEST_OTP")],
        help: "Fixed codes for test numbers, number:code pairs separated by commas: no SMS is sent to them (default: none).")
    package static let smsTestOTPValidUntil = ServerSetting(
        "sms-test-otp-valid-until", \.phone.testCodesValidUntil, .optionalText, variables: [Variable("GOTRUE_SMS_TEST_OTP_VALID_UNTIL")],
        help: "When the test numbers stop working (RFC 3339; default: never).")
    package static let smsProvider = ServerSetting(
        "sms-provider", \.phone.provider, .optionalText, variables: [Variable("GOTRUE_SMS_PROVIDER")],
        help: "The SMS provider: twilio, twilio_verify, messagebird, vonage or textlocal (default: none, only test numbers get codes).")
    package static let smsTwilioAccountSID = ServerSetting(
        "sms-twilio-account-sid", \.phone.twilioAccountSID, .optionalText, variables: [Variable("GOTRUE_SMS_TWILIO_ACCOUNT_SID")],
        help: "Twilio's account SID (AC…).")
    package static let smsTwilioMessageServiceSID = ServerSetting(
        "sms-twilio-message-service-sid", \.phone.twilioMessageServiceSID, .optionalText,
        variables: [Variable("GOTRUE_SMS_TWILIO_MESSAGE_SERVICE_SID")], help: "The Twilio messaging service SID (MG…) or number messages come from.")
    package static let smsTwilioContentSID = ServerSetting(
        "sms-twilio-content-sid", \.phone.twilioContentSID, .optionalText, variables: [Variable("GOTRUE_SMS_TWILIO_CONTENT_SID")],
        help: "A Twilio WhatsApp content template (HX…) whose variable 1 is the code (default: the text is sent).")
    /// Twilio's auth token: from the environment only, never the command line.
    package static let smsTwilioAuthToken = ServerSetting(
        environment: "LATCHKEY_SMS_TWILIO_AUTH_TOKEN", or: ["GOTRUE_SMS_TWILIO_AUTH_TOKEN"], \.phone.twilioAuthToken, .optionalText,
        help: "Twilio's auth token.", isSecret: true)
    package static let smsTwilioVerifyAccountSID = ServerSetting(
        "sms-twilio-verify-account-sid", \.phone.twilioVerifyAccountSID, .optionalText,
        variables: [Variable("GOTRUE_SMS_TWILIO_VERIFY_ACCOUNT_SID")], help: "Twilio Verify's account SID (AC…).")
    package static let smsTwilioVerifyMessageServiceSID = ServerSetting(
        "sms-twilio-verify-message-service-sid", \.phone.twilioVerifyMessageServiceSID, .optionalText,
        variables: [Variable("GOTRUE_SMS_TWILIO_VERIFY_MESSAGE_SERVICE_SID")], help: "The Twilio Verify service SID (VA…).")
    /// Twilio Verify's auth token: from the environment only, never the command line.
    package static let smsTwilioVerifyAuthToken = ServerSetting(
        environment: "LATCHKEY_SMS_TWILIO_VERIFY_AUTH_TOKEN", or: ["GOTRUE_SMS_TWILIO_VERIFY_AUTH_TOKEN"],
        \.phone.twilioVerifyAuthToken, .optionalText, help: "Twilio Verify's auth token.", isSecret: true)
    package static let smsMessageBirdOriginator = ServerSetting(
        "sms-messagebird-originator", \.phone.messageBirdOriginator, .optionalText, variables: [Variable("GOTRUE_SMS_MESSAGEBIRD_ORIGINATOR")],
        help: "The sender MessageBird shows.")
    package static let smsVonageAPIKey = ServerSetting(
        "sms-vonage-api-key", \.phone.vonageAPIKey, .optionalText, variables: [Variable("GOTRUE_SMS_VONAGE_API_KEY")], help: "Vonage's API key.")
    package static let smsVonageFrom = ServerSetting(
        "sms-vonage-from", \.phone.vonageFrom, .optionalText, variables: [Variable("GOTRUE_SMS_VONAGE_FROM")], help: "The sender Vonage shows.")
    package static let smsTextlocalSender = ServerSetting(
        "sms-textlocal-sender", \.phone.textlocalSender, .optionalText, variables: [Variable("GOTRUE_SMS_TEXTLOCAL_SENDER")],
        help: "The sender Textlocal shows.")
    /// MessageBird's access key: from the environment only.
    package static let smsMessageBirdAccessKey = ServerSetting(
        environment: "LATCHKEY_SMS_MESSAGEBIRD_ACCESS_KEY", or: ["GOTRUE_SMS_MESSAGEBIRD_ACCESS_KEY"], \.phone.messageBirdAccessKey, .optionalText,
        help: "MessageBird's access key.", isSecret: true)
    /// Vonage's API secret: from the environment only.
    package static let smsVonageAPISecret = ServerSetting(
        environment: "LATCHKEY_SMS_VONAGE_API_SECRET", or: ["GOTRUE_SMS_VONAGE_API_SECRET"], \.phone.vonageAPISecret, .optionalText,
        help: "Vonage's API secret.", isSecret: true)
    /// Textlocal's API key: from the environment only.
    package static let smsTextlocalAPIKey = ServerSetting(
        environment: "LATCHKEY_SMS_TEXTLOCAL_API_KEY", or: ["GOTRUE_SMS_TEXTLOCAL_API_KEY"], \.phone.textlocalAPIKey, .optionalText,
        help: "Textlocal's API key.", isSecret: true)
    /// Development only: where SMS provider requests go, for a local fake of the provider's API.
    package static let smsProviderURL = ServerSetting(
        environment: "LATCHKEY_SMS_PROVIDER_URL", \.phone.providerURLOverride, .optionalText,
        help: "Development only: a loopback URL SMS provider requests go to instead of the provider's host, with --allow-loopback-providers.")
    package static let rateLimitSMS = ServerSetting(
        "rate-limit-sms", \.rateLimits.smsPerHour.count, .rateLimit, variables: [Variable("GOTRUE_RATE_LIMIT_SMS_SENT", .positiveInteger)],
        help: "SMS messages the server sends per hour, all numbers together.")
    package static let passkeysEnabled = ServerSetting(
        "passkeys-enabled", \.passkeys.enabled, .switch, variables: [Variable("GOTRUE_PASSKEY_ENABLED")],
        help: "Let users register passkeys and sign in with them (needs --webauthn-rp-id and --webauthn-rp-origins).")
    package static let passkeysPerUser = ServerSetting(
        "passkeys-per-user", \.passkeys.maximumPerUser, .integer,
        variables: [Variable("GOTRUE_PASSKEY_MAX_PASSKEYS_PER_USER", .positiveInteger)], help: "Most passkeys one user may register.")
    package static let webAuthnRPID = ServerSetting(
        "webauthn-rp-id", \.passkeys.relyingPartyID, .optionalText, variables: [Variable("GOTRUE_WEBAUTHN_RP_ID")],
        help: "The relying party id passkeys are bound to: the site's domain, such as example.com.")
    package static let webAuthnRPDisplayName = ServerSetting(
        "webauthn-rp-display-name", \.passkeys.relyingPartyName, .optionalText, variables: [Variable("GOTRUE_WEBAUTHN_RP_DISPLAY_NAME")],
        help: "The name authenticators show for this site (default: the relying party id).")
    package static let webAuthnRPOrigins = ServerSetting(
        "webauthn-rp-origins", \.passkeys.origins, .commaList, variables: [Variable("GOTRUE_WEBAUTHN_RP_ORIGINS")],
        help: "The exact origins passkey ceremonies may run on, comma-separated (https://example.com; an iOS app's is https://<rp id>).")
    package static let webAuthnChallengeExpiry = ServerSetting(
        "webauthn-challenge-expiry", \.passkeys.challengeExpiry, .seconds,
        variables: [Variable("GOTRUE_WEBAUTHN_CHALLENGE_EXPIRY_DURATION", .duration)], help: "Seconds a passkey ceremony's challenge stays usable.")
    package static let appleAppIDs = ServerSetting(
        "apple-app-ids", \.passkeys.appleAppIDs, .commaList,
        help:
            "iOS app IDs (TEAMID.bundle.id, comma-separated) listed as webcredentials in /.well-known/apple-app-site-association, so the apps can use passkeys of this domain."
    )
    package static let smtpURL = ServerSetting(
        "smtp-url", \.smtpURL, .optionalText,
        variables: [Variable("GOTRUE_SMTP_HOST", .goTrueSMTPURL, alsoReads: ["GOTRUE_SMTP_PORT", "GOTRUE_SMTP_USER", "GOTRUE_SMTP_PASS"])],
        help:
            "Send emails over SMTP: smtp://USER:PASSWORD@HOST:PORT (STARTTLS required; ?starttls=optional allows plain text) or smtps://... (implicit TLS). Default: the outbox folder.",
        isSecret: true)
    package static let mailFrom = ServerSetting(
        "mail-from", \.mailFrom, .optionalText,
        variables: [Variable("GOTRUE_SMTP_ADMIN_EMAIL", .goTrueSender, alsoReads: ["GOTRUE_SMTP_SENDER_NAME"])],
        help: "Sender of emails: \"Name <address>\" or address.")
    package static let pageTemplates = ServerSetting(
        "page-templates", \.pageTemplatesDirectory, .directory,
        help: "Folder of Mustache templates replacing the hosted pages' defaults by file name (home.mustache, password.mustache, style.css, …).")
    package static let mailTemplates = ServerSetting(
        "mail-templates", \.mailTemplatesDirectory, .directory,
        help:
            "Folder of mail templates replacing the defaults part by part: <kind>.subject, <kind>.txt, <kind>.html for confirmation, invite, recovery, magic_link, email_change, reauthentication (GoTrue's {{ .Variable }} syntax, substitution only)."
    )
    /// The log level: the command's logger uses it, so it has no ``store``.
    package static let logLevel = ServerSetting(
        "log-level", variables: [Variable("GOTRUE_LOG_LEVEL", .logLevel)], help: "trace, debug, info, notice, warning, error or critical.",
        defaultText: { _ in "info" }, store: nil)
    /// The log format: the command's log handler uses it, so it has no ``store``.
    package static let logFormat = ServerSetting(
        "log-format", help: "text (one line per event) or json (one JSON object per line).", defaultText: { _ in "text" }, store: nil)
    package static let trustedProxy = ServerSetting(
        "trusted-proxy", \.trustedProxies, .list,
        help: "A proxy (IPv4 or IPv6 CIDR, or one address) whose X-Forwarded-For is believed (repeatable). By default none is.")
    package static let metricsToken = ServerSetting(
        "metrics-token", \.metricsToken, .optionalText,
        help:
            "Serve GET /metrics (Prometheus text) to requests with Authorization: Bearer TOKEN (at least 16 characters; prefer LATCHKEY_METRICS_TOKEN). Default: no /metrics.",
        isSecret: true)
    package static let metricsEnabled = ServerSetting(
        "metrics-enabled", \.metricsEnabled, .boolean, variables: [Variable("GOTRUE_METRICS_ENABLED", .boolean)],
        help: "Record metrics (true or false). false: nothing is counted or timed and GET /metrics answers 404.")
    package static let jwtKeys = ServerSetting(
        "jwt-keys", \.jwtKeys, .jwtKeys, variables: [Variable("GOTRUE_JWT_KEYS")],
        help:
            "Signing keys as GoTrue's GOTRUE_JWT_KEYS: a JSON array of private JWKs (ES256, RS256 or HS256), exactly one with \"sign\" in key_ops (see `latchkey keys generate`). Prefer LATCHKEY_JWT_KEYS or --jwt-keys-file to the command line. Default: the JWT secret signs (HS256).",
        valueName: "json", isSecret: true)
    package static let jwtKeysFile = ServerSetting(
        "jwt-keys-file", \.jwtKeys, .file(then: .jwtKeys, what: "JWT keys"),
        help: "A file holding the --jwt-keys JSON (keeps private keys out of the command line).", sameSettingAs: "jwt-keys")
    package static let databaseURLFile = ServerSetting(
        "database-url-file", \.databaseURL, .file(then: .optionalText, what: "a URL"),
        help: "A file holding the database URL (keeps a password out of the command line, like LATCHKEY_DATABASE_URL).",
        sameSettingAs: "database")
    /// The HS256 secret: from the environment only, never the command line.
    package static let jwtSecret = ServerSetting(
        environment: "LATCHKEY_JWT_SECRET", or: ["GOTRUE_JWT_SECRET"], \.jwtSecret, .optionalText,
        help: "HS256 secret for access tokens, at least 32 bytes; when unset, generated on first start and kept in <data-dir>/jwt-secret.",
        isSecret: true)

    /// Every setting, in the order `latchkey serve --help` lists them.
    package static let all: [ServerSetting] =
        [
            host, port, dataDirectory, autoconfirm, disableSignup, siteURL, externalURL, redirectURL, accessTokenTTL, jwtAdminRole,
            corsAllowedOrigins, corsAllowedHeaders, refreshReuseInterval, sessionTimebox, sessionInactivityTimeout, cleanupInterval,
            responsePaddingFloor,
            refreshTokenRetention, auditRetention, idleTimeout, maxConnections, database, databasePoolSize, databaseTimeout,
            enableAnonymousUsers, securePasswordChange, allowSelfDeletion, requireCurrentPassword, mailerSecureEmailChange,
            mailerNotificationsPasswordChanged,
            mailerNotificationsEmailChanged, mailerNotificationsPhoneChanged, mailerNotificationsIdentityLinked,
            mailerNotificationsIdentityUnlinked, mailerNotificationsMfaFactorEnrolled, mailerNotificationsMfaFactorUnenrolled, emailCodeTTL,
            passwordMinLength,
            passwordRequiredCharacters,
            passwordLeakCheck, passwordLeakCheckFailClosed, captchaEnabled, captchaProvider, hookCustomAccessTokenEnabled,
            hookCustomAccessTokenURI, hookBeforeUserCreatedEnabled, hookBeforeUserCreatedURI, hookPasswordVerificationAttemptEnabled,
            hookPasswordVerificationAttemptURI, hookMFAVerificationAttemptEnabled, hookMFAVerificationAttemptURI, hookSendSMSEnabled, hookSendSMSURI,
            hookSendEmailEnabled, hookSendEmailURI, hookAfterUserCreatedEnabled, hookAfterUserCreatedURI,
            bcryptCost, noRateLimits,
            rateLimitSignIn,
            rateLimitFailedPassword, rateLimitEmail, rateLimitRefresh, rateLimitVerify, rateLimitAddressChanges, rateLimitMFA,
            rateLimitFailedMFACode,
            mfaMaxEnrolledFactors, mfaMaxVerifiedFactors, mfaChallengeExpiry, mfaFactorExpiry, mfaTOTPEnroll, mfaTOTPVerify,
            mfaWebAuthnEnroll, mfaWebAuthnVerify, mfaPhoneEnroll, mfaPhoneVerify, mfaPhoneOTPLength, mfaPhoneTemplate, mfaPhoneMaxFrequency,
            emailEnabled, phoneEnabled, smsAutoconfirm, smsOTPExp, smsOTPLength, smsMaxFrequency, smsTemplate, smsTestOTP, smsTestOTPValidUntil,
            smsProvider,
            smsTwilioAccountSID, smsTwilioMessageServiceSID, smsTwilioContentSID, smsTwilioVerifyAccountSID,
            smsTwilioVerifyMessageServiceSID, smsMessageBirdOriginator, smsVonageAPIKey, smsVonageFrom,
            smsTextlocalSender, rateLimitSMS,
            rateLimitPasskey, passkeysEnabled, passkeysPerUser, webAuthnRPID, webAuthnRPDisplayName, webAuthnRPOrigins, webAuthnChallengeExpiry,
            appleAppIDs, smtpURL,
            mailFrom, pageTemplates, mailTemplates, logLevel, logFormat, trustedProxy, metricsToken, metricsEnabled, jwtKeys, jwtKeysFile,
            databaseURLFile, jwtSecret, captchaSecret, hookCustomAccessTokenSecrets, hookBeforeUserCreatedSecrets,
            hookPasswordVerificationAttemptSecrets, hookMFAVerificationAttemptSecrets, hookSendSMSSecrets, hookSendEmailSecrets,
            hookAfterUserCreatedSecrets, smsTwilioAuthToken,
            smsTwilioVerifyAuthToken,
            smsMessageBirdAccessKey, smsVonageAPISecret, smsTextlocalAPIKey, smsProviderURL,
            allowLoopbackProviders, firebaseProjectID,
        ] + externalProviders + oauthServer

    /// The setting named `id` (its flag, or an environment-only setting's first variable).
    package static func named(_ id: String) -> ServerSetting? { all.first { $0.id == id } }

    /// Where `serve`, `keys` and `backup` keep their data when no setting says.
    package static let defaultDataDirectory = "./.latchkey"
}

// MARK: - Typed settings

extension ServerSetting {
    /// How a setting's given value becomes a configuration value of type `T`, and how a
    /// default of that type reads in help (`nil`: the help text says it).
    package struct Parser<T>: Sendable {
        let kind: Kind
        let parse: @Sendable (_ value: Value, _ setting: ServerSetting) throws(ConfigurationError) -> T
        let describe: @Sendable (T) -> String?
    }

    /// A setting stored at `keyPath`, parsed by `parser`; its default is the configuration's.
    init<T>(
        _ id: String, _ keyPath: WritableKeyPath<ServerConfiguration, T>, _ parser: Parser<T>, variables: [Variable] = [],
        help: String, valueName: String? = nil, sameSettingAs: String? = nil, isSecret: Bool = false
    ) {
        // A key path to a stored property is immutable, so sharing it is safe.
        nonisolated(unsafe) let keyPath = keyPath
        self.init(
            id, kind: parser.kind, variables: variables, help: help, valueName: valueName, sameSettingAs: sameSettingAs, isSecret: isSecret,
            defaultText: { parser.describe($0[keyPath: keyPath]) },
            store: { value, setting, configuration throws(ConfigurationError) in
                configuration[keyPath: keyPath] = try parser.parse(value, setting)
            })
    }

    /// A file's text, trimmed; `nil` when unreadable or empty.
    package static func fileContents(_ path: String) -> String? {
        guard let data = FileManager.default.contents(atPath: path) else { return nil }
        let text = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        return text.isEmpty ? nil : text
    }
}

extension ServerSetting.Parser {
    /// The text of a `.value` setting.
    static func textValue(_ value: ServerSetting.Value, _ setting: ServerSetting) -> String {
        switch value {
        case .text(let text): text
        case .list(let items): items.joined(separator: ",")
        case .flag(let on): on ? "true" : "false"
        }
    }

    /// A whole number; the message names the setting.
    static func integerValue(_ value: ServerSetting.Value, _ setting: ServerSetting) throws(ConfigurationError) -> Int {
        let text = textValue(value, setting)
        guard let number = Int(text) else { throw setting.error("must be a whole number, not '\(text)'") }
        return number
    }

    /// The trimmed text of the file the value names, parsed by `parser`; `what` names the
    /// contents in the message when the file is unreadable or empty.
    static func file(then parser: Self, what: String) -> Self {
        Self(
            kind: .value,
            parse: { value, setting throws(ConfigurationError) in
                let path = textValue(value, setting)
                guard let contents = ServerSetting.fileContents(path) else { throw setting.error("\(path): cannot read \(what) from it") }
                return try parser.parse(.text(contents), setting)
            }, describe: { _ in nil })
    }
}

extension ServerSetting.Parser where T == String {
    static var text: Self { Self(kind: .value, parse: { value, setting in textValue(value, setting) }, describe: { $0 }) }
}

extension ServerSetting.Parser where T == String? {
    static var optionalText: Self { Self(kind: .value, parse: { value, setting in textValue(value, setting) }, describe: { _ in nil }) }
}

extension ServerSetting.Parser where T == Int {
    static var integer: Self {
        Self(kind: .value, parse: { value, setting throws(ConfigurationError) in try integerValue(value, setting) }, describe: { String($0) })
    }

    /// A rate limit: at least 1 (`--no-rate-limits` turns limits off).
    static var rateLimit: Self {
        Self(
            kind: .value,
            parse: { value, setting throws(ConfigurationError) in
                let count = try integerValue(value, setting)
                guard count >= 1 else { throw setting.error("must be at least 1; use --no-rate-limits to turn rate limits off") }
                return count
            }, describe: { String($0) })
    }
}

extension ServerSetting.Parser where T == Int? {
    static var optionalInteger: Self {
        Self(kind: .value, parse: { value, setting throws(ConfigurationError) in try integerValue(value, setting) }, describe: { _ in nil })
    }
}

extension ServerSetting.Parser where T == TimeInterval {
    /// Whole seconds.
    static var seconds: Self {
        Self(
            kind: .value, parse: { value, setting throws(ConfigurationError) in TimeInterval(try integerValue(value, setting)) },
            describe: { String(Int($0)) })
    }

    /// Seconds, fractions allowed.
    static var number: Self {
        Self(
            kind: .value,
            parse: { value, setting throws(ConfigurationError) in
                let text = textValue(value, setting)
                guard let number = Double(text), number.isFinite else { throw setting.error("must be a number of seconds, not '\(text)'") }
                return number
            }, describe: { $0.rounded() == $0 ? String(Int($0)) : String($0) })
    }
}

extension ServerSetting.Parser where T == TimeInterval? {
    /// Whole seconds, no default.
    static var optionalSeconds: Self {
        Self(
            kind: .value, parse: { value, setting throws(ConfigurationError) in TimeInterval(try integerValue(value, setting)) },
            describe: { _ in nil })
    }
}

extension ServerSetting.Parser where T == Bool {
    /// An option taking `true` or `false`.
    static var boolean: Self {
        Self(
            kind: .value,
            parse: { value, setting throws(ConfigurationError) in
                let text = textValue(value, setting)
                guard let on = ServerSetting.parseBool(text) else { throw setting.error("must be true or false, not '\(text)'") }
                return on
            }, describe: { String($0) })
    }

    /// A flag that turns the setting on.
    static var `switch`: Self { Self(kind: .flag, parse: { value, _ in value == .flag(true) }, describe: { _ in nil }) }
    /// A flag that turns the setting off (`--no-rate-limits`).
    static var switchOff: Self { Self(kind: .flag, parse: { value, _ in value != .flag(true) }, describe: { _ in nil }) }
    /// `--name` / `--no-name`.
    static var onOff: Self { Self(kind: .invertibleFlag, parse: { value, _ in value != .flag(false) }, describe: { $0 ? "on" : "off" }) }
}

extension ServerSetting.Parser where T == [String] {
    /// A repeatable option.
    static var list: Self {
        Self(
            kind: .list,
            parse: { value, setting in
                if case .list(let items) = value { items } else { ServerSetting.list(textValue(value, setting)) }
            }, describe: { $0.isEmpty ? nil : $0.joined(separator: ", ") })
    }

    /// Roles, repeatable: an empty list is ``ServerConfiguration/defaultJWTAdminRoles``.
    static var roles: Self {
        Self(
            kind: .list,
            parse: { value, setting in
                let items = if case .list(let items) = value { items } else { ServerSetting.list(textValue(value, setting)) }
                return items.isEmpty ? ServerConfiguration.defaultJWTAdminRoles : items
            }, describe: { $0.joined(separator: ", ") })
    }

    /// One option holding a comma-separated list.
    static var commaList: Self {
        Self(kind: .value, parse: { value, setting in ServerSetting.list(textValue(value, setting)) }, describe: { _ in nil })
    }
}

extension ServerSetting.Parser where T == [String] {
    /// GoTrue's character sets: separated by `:`, a `\\:` standing for a colon inside a set,
    /// empty sets dropped.
    static var characterSets: Self {
        Self(kind: .value, parse: { value, setting in ServerSetting.characterSets(textValue(value, setting)) }, describe: { _ in nil })
    }
}

extension ServerSetting {
    /// The sets of `text`, read as GoTrue's `PasswordRequiredCharacters.Decode` reads them.
    package static func characterSets(_ text: String) -> [String] {
        var parts = text.components(separatedBy: ":")
        var index = 0
        while index < parts.count - 1 {
            if parts[index].hasSuffix("\\") {
                parts[index] = String(parts[index].dropLast()) + ":" + parts[index + 1]
                parts[index + 1] = ""
            }
            index += 1
        }
        return parts.filter { !$0.isEmpty }
    }
}

extension ServerSetting.Parser where T == URL? {
    /// A folder's path.
    static var directory: Self {
        Self(kind: .value, parse: { value, setting in URL(fileURLWithPath: textValue(value, setting)) }, describe: { _ in nil })
    }
}

extension ServerSetting.Parser where T == JWTKeySet? {
    /// GoTrue's JSON array of private JWKs.
    static var jwtKeys: Self {
        Self(
            kind: .value, parse: { value, setting throws(ConfigurationError) in try JWTKeySet(json: textValue(value, setting)) },
            describe: { _ in nil })
    }
}
