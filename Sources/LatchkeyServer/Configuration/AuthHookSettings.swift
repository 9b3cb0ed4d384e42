import Foundation

/// One auth hook's settings, as GoTrue's `GOTRUE_HOOK_<NAME>_ENABLED`, `_URI` and `_SECRETS`.
public struct AuthHookSettings: Sendable, Equatable {
    /// Whether the hook is called.
    public var enabled = false
    /// Where the hook is: an `https://` URL (`http://` only for a loopback host).
    public var uri: String?
    /// The Standard Webhooks secrets each request is signed with, separated by `|`
    /// (`v1,whsec_<base64>`). Environment only, never a flag.
    public var secrets: String?

    public init() {}

    /// The endpoint the settings describe, or `nil` when the hook is off; throws, naming the
    /// settings, when a URI or a secret is unusable.
    func endpoint(uriSetting: ServerSetting, secretsSetting: ServerSetting) throws(ConfigurationError) -> HookEndpoint? {
        guard enabled else { return nil }
        guard let uri, !uri.isEmpty else { throw uriSetting.error("is required when the hook is enabled") }
        do {
            return try HookEndpoint(uri: uri, secrets: secrets ?? "")
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
    /// `GOTRUE_HOOK_MFA_VERIFICATION_ATTEMPT_*`: every TOTP code checked is sent to it, which may
    /// refuse it.
    public var mfaVerificationAttempt = AuthHookSettings()

    public init() {}

    /// The custom access token hook's endpoint, or `nil` when it is off.
    func customAccessTokenEndpoint() throws(ConfigurationError) -> HookEndpoint? {
        try customAccessToken.endpoint(uriSetting: .hookCustomAccessTokenURI, secretsSetting: .hookCustomAccessTokenSecrets)
    }

    /// The before user created hook's endpoint, or `nil` when it is off.
    func beforeUserCreatedEndpoint() throws(ConfigurationError) -> HookEndpoint? {
        try beforeUserCreated.endpoint(uriSetting: .hookBeforeUserCreatedURI, secretsSetting: .hookBeforeUserCreatedSecrets)
    }

    /// The password verification attempt hook's endpoint, or `nil` when it is off.
    func passwordVerificationAttemptEndpoint() throws(ConfigurationError) -> HookEndpoint? {
        try passwordVerificationAttempt.endpoint(
            uriSetting: .hookPasswordVerificationAttemptURI, secretsSetting: .hookPasswordVerificationAttemptSecrets)
    }

    /// The MFA verification attempt hook's endpoint, or `nil` when it is off.
    func mfaVerificationAttemptEndpoint() throws(ConfigurationError) -> HookEndpoint? {
        try mfaVerificationAttempt.endpoint(uriSetting: .hookMFAVerificationAttemptURI, secretsSetting: .hookMFAVerificationAttemptSecrets)
    }

    func validate() throws(ConfigurationError) {
        _ = try customAccessTokenEndpoint()
        _ = try beforeUserCreatedEndpoint()
        _ = try passwordVerificationAttemptEndpoint()
        _ = try mfaVerificationAttemptEndpoint()
    }
}
