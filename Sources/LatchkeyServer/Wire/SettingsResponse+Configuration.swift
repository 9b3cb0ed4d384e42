import LatchkeyWire

extension SettingsResponse {
    /// What `GET /settings` says about a server with `configuration`: email sign-in only, and
    /// the password rule a sign-up form can check before sending.
    init(_ configuration: ServerConfiguration) {
        self.init(
            external: ["email": true, "phone": false, "anonymous_users": false],
            disable_signup: configuration.disableSignup, mailer_autoconfirm: configuration.autoconfirm,
            phone_autoconfirm: false, sms_provider: "", saml_enabled: false,
            password_min_length: configuration.minimumPasswordLength)
    }
}
