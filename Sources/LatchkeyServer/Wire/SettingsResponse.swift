import Foundation

/// GoTrue's `/settings` object: which sign-in methods the server offers, and its sign-up rules.
struct SettingsResponse: Encodable, Sendable {
    var external: [String: Bool]
    var disable_signup: Bool
    var mailer_autoconfirm: Bool
    var phone_autoconfirm: Bool
    var sms_provider: String
    var saml_enabled: Bool
    var password_min_length: Int

    init(_ configuration: ServerConfiguration) {
        external = ["email": true, "phone": false, "anonymous_users": false]
        disable_signup = configuration.disableSignup
        mailer_autoconfirm = configuration.autoconfirm
        phone_autoconfirm = false
        sms_provider = ""
        saml_enabled = false
        password_min_length = configuration.minimumPasswordLength
    }
}
