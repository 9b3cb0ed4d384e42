import LatchkeyWire

extension SettingsResponse {
    /// What `GET /settings` says about a server with `configuration`: the ways to sign in, and
    /// the password rule a sign-up form can check before sending.
    init(_ configuration: ServerConfiguration) {
        self.init(
            external: configuration.external.enabledProviders.merging(
                ["email": configuration.emailEnabled, "phone": configuration.phone.enabled, "anonymous_users": configuration.enableAnonymousUsers]) {
                    _, fixed in fixed
                },
            disable_signup: configuration.disableSignup, mailer_autoconfirm: configuration.autoconfirm,
            phone_autoconfirm: configuration.phone.enabled && configuration.phone.autoconfirm,
            sms_provider: configuration.phone.enabled ? configuration.phone.provider ?? "" : "", saml_enabled: false,
            password_min_length: configuration.minimumPasswordLength, passkeys_enabled: configuration.passkeys.enabled)
    }
}
