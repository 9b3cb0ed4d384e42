import Foundation

/// One auth hook's settings, as GoTrue's `GOTRUE_HOOK_<NAME>_ENABLED`, `_URI` and `_SECRETS`.
public struct AuthHookSettings: Sendable, Equatable {
    /// Whether the hook is called.
    public var enabled = false
    /// Where the hook is: an `https://` URL (`http://` only for a loopback host), or with the
    /// PostgreSQL store a function, `pg-functions://postgres/<schema>/<function>`.
    public var uri: String?
    /// The Standard Webhooks secrets each request is signed with, separated by `|`
    /// (`v1,whsec_<base64>`). Environment only, never a flag.
    public var secrets: String?

    public init() {}

    /// Where the settings say the hook is, or `nil` when it is off (``HookTarget/missingURI``
    /// when it is on without a URI, as GoTrue starts with); throws, naming the settings, when a
    /// URI or a secret is unusable.
    func target(uriSetting: ServerSetting, secretsSetting: ServerSetting) throws(ConfigurationError) -> HookTarget? {
        guard enabled else { return nil }
        guard let uri, !uri.isEmpty else { return .missingURI }
        do {
            if uri.lowercased().hasPrefix("pg-functions:") { return .postgresFunction(try PostgresFunctionName(uri: uri)) }
            return .http(try HookEndpoint(uri: uri, secrets: secrets ?? ""))
        } catch let error as HookEndpoint.SecretError {
            throw secretsSetting.error(error.reason)
        } catch {
            throw uriSetting.error("\(error)")
        }
    }
}

/// The auth hooks Latchkey calls.
public struct AuthHooks: Sendable, Equatable {
    /// `GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_*`: the claims of every access token issued go through it.
    public var customAccessToken = AuthHookSettings()
    /// `GOTRUE_HOOK_BEFORE_USER_CREATED_*`: every new account is sent to it before it is stored.
    public var beforeUserCreated = AuthHookSettings()
    /// `GOTRUE_HOOK_PASSWORD_VERIFICATION_ATTEMPT_*`: every password sign-in of an existing
    /// account is sent to it, which may refuse it.
    public var passwordVerificationAttempt = AuthHookSettings()
    /// `GOTRUE_HOOK_MFA_VERIFICATION_ATTEMPT_*`: every TOTP or phone factor code checked is sent
    /// to it, which may refuse it.
    public var mfaVerificationAttempt = AuthHookSettings()
    /// `GOTRUE_HOOK_SEND_SMS_*`: every SMS code goes to it instead of the SMS provider.
    public var sendSMS = AuthHookSettings()
    /// `GOTRUE_HOOK_SEND_EMAIL_*`: every email goes to it instead of the mailer.
    public var sendEmail = AuthHookSettings()
    /// `GOTRUE_HOOK_AFTER_USER_CREATED_*`: every new account is sent to it once it is stored.
    public var afterUserCreated = AuthHookSettings()
    /// How long an HTTP hook has to answer, all attempts together: 5 seconds, GoTrue's fixed
    /// limit. Not a `serve` setting; the test server (`LatchkeyTesting`) raises it, so that a
    /// loaded machine's slow answer is not taken for a hook that timed out.
    public var httpTimeout: TimeInterval = 5
    /// How long a PostgreSQL function hook may run (its transaction's `statement_timeout`): 2
    /// seconds, GoTrue's fixed limit. Not a `serve` setting; the test server raises it, as
    /// ``httpTimeout``.
    public var functionTimeout: TimeInterval = 2

    public init() {}

    /// The custom access token hook's target, or `nil` when it is off.
    func customAccessTokenEndpoint() throws(ConfigurationError) -> HookTarget? {
        try customAccessToken.target(uriSetting: .hookCustomAccessTokenURI, secretsSetting: .hookCustomAccessTokenSecrets)
    }

    /// The before user created hook's endpoint, or `nil` when it is off.
    func beforeUserCreatedEndpoint() throws(ConfigurationError) -> HookTarget? {
        try beforeUserCreated.target(uriSetting: .hookBeforeUserCreatedURI, secretsSetting: .hookBeforeUserCreatedSecrets)
    }

    /// The password verification attempt hook's endpoint, or `nil` when it is off.
    func passwordVerificationAttemptEndpoint() throws(ConfigurationError) -> HookTarget? {
        try passwordVerificationAttempt.target(
            uriSetting: .hookPasswordVerificationAttemptURI, secretsSetting: .hookPasswordVerificationAttemptSecrets)
    }

    /// The MFA verification attempt hook's endpoint, or `nil` when it is off.
    func mfaVerificationAttemptEndpoint() throws(ConfigurationError) -> HookTarget? {
        try mfaVerificationAttempt.target(uriSetting: .hookMFAVerificationAttemptURI, secretsSetting: .hookMFAVerificationAttemptSecrets)
    }

    /// The send SMS hook's target, or `nil` when it is off.
    func sendSMSTarget() throws(ConfigurationError) -> HookTarget? {
        try sendSMS.target(uriSetting: .hookSendSMSURI, secretsSetting: .hookSendSMSSecrets)
    }

    /// The send email hook's target, or `nil` when it is off.
    func sendEmailTarget() throws(ConfigurationError) -> HookTarget? {
        try sendEmail.target(uriSetting: .hookSendEmailURI, secretsSetting: .hookSendEmailSecrets)
    }

    /// The after user created hook's target, or `nil` when it is off.
    func afterUserCreatedTarget() throws(ConfigurationError) -> HookTarget? {
        try afterUserCreated.target(uriSetting: .hookAfterUserCreatedURI, secretsSetting: .hookAfterUserCreatedSecrets)
    }

    /// Throws, naming the setting, for an unusable hook, or a PostgreSQL function hook when the
    /// store is not PostgreSQL (`postgres`: it is).
    func validate(postgres: Bool = false) throws(ConfigurationError) {
        let targets: [(HookTarget?, ServerSetting)] = [
            (try customAccessTokenEndpoint(), .hookCustomAccessTokenURI), (try beforeUserCreatedEndpoint(), .hookBeforeUserCreatedURI),
            (try passwordVerificationAttemptEndpoint(), .hookPasswordVerificationAttemptURI),
            (try mfaVerificationAttemptEndpoint(), .hookMFAVerificationAttemptURI), (try sendSMSTarget(), .hookSendSMSURI),
            (try sendEmailTarget(), .hookSendEmailURI),
            (try afterUserCreatedTarget(), .hookAfterUserCreatedURI),
        ]
        for case (.postgresFunction?, let setting) in targets where !postgres {
            throw setting.error("names a PostgreSQL function: pg-functions:// hooks need the PostgreSQL store (--database postgres://…)")
        }
    }

    /// A warning for each hook enabled without a URI: GoTrue starts with it, and every call of
    /// the hook fails with 500 `unexpected_failure`.
    func warnings() -> [String] {
        let hooks: [(AuthHookSettings, ServerSetting, String)] = [
            (customAccessToken, .hookCustomAccessTokenURI, "every sign-in and token refresh"),
            (beforeUserCreated, .hookBeforeUserCreatedURI, "every sign-up"),
            (passwordVerificationAttempt, .hookPasswordVerificationAttemptURI, "every password sign-in"),
            (mfaVerificationAttempt, .hookMFAVerificationAttemptURI, "every MFA code verification"),
            (sendSMS, .hookSendSMSURI, "every SMS"),
            (sendEmail, .hookSendEmailURI, "every email"),
            (afterUserCreated, .hookAfterUserCreatedURI, "every sign-up"),
        ]
        return hooks.compactMap { hook, setting, what in
            guard hook.enabled, hook.uri?.isEmpty ?? true else { return nil }
            return "a hook is enabled without its URI: \(setting.label) is not set: \(what) fails with 500 unexpected_failure"
        }
    }
}
