import Foundation

/// CAPTCHA protection of sign-up, sign-in and the mail-sending routes, with GoTrue's settings
/// (`GOTRUE_SECURITY_CAPTCHA_ENABLED`, `_PROVIDER`, `_SECRET`).
public struct CaptchaSettings: Sendable, Equatable {
    /// Whether guarded requests must carry a token the provider accepts.
    public var enabled = false
    /// `hcaptcha` (the default) or `turnstile` (Cloudflare).
    public var provider = "hcaptcha"
    /// The provider's secret key. Required when ``enabled``; environment only, never a flag.
    public var secret: String?
    /// A local stand-in for the provider's `siteverify`, used only with
    /// `ExternalProviderSettings.allowLoopbackProviders`, for tests.
    package var siteverifyURLOverride: String?

    public init() {}

    func validate() throws(ConfigurationError) {
        guard enabled else { return }
        guard CaptchaVerifier.Provider(rawValue: provider) != nil else {
            throw ServerSetting.captchaProvider.error("must be hcaptcha or turnstile, not '\(provider.prefix(40))'")
        }
        guard let secret, !secret.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw ServerSetting.captchaSecret.error("is required when CAPTCHA protection is enabled")
        }
    }
}
