import Foundation
import Latchkey

/// What the auth server says about itself (`GET /settings`): what the sign-up form needs to know
/// before anyone types.
public struct AuthServerSettings: Sendable, Hashable {
    /// The password rules: the Latchkey server's `password_min_length`; upstream GoTrue and
    /// Supabase do not publish it, and then the default minimum (6) applies.
    public var passwordRules: PasswordRules
    /// Whether new accounts are refused (`disable_signup`).
    public var signUpDisabled: Bool
    /// Whether new accounts are confirmed at once, without an email (`mailer_autoconfirm`).
    public var autoconfirm: Bool
    /// The sign-in providers that are on (`external`: `apple`, `google`…), for the login form
    /// to offer (``LoginFormModel/apply(_:)``).
    public var providers: [IdentityProvider]
    /// Whether the server signs in with passkeys (`passkeys_enabled`), for the login form to
    /// offer "Sign in with a Passkey" (``LoginFormModel/offersPasskeySignIn``).
    public var passkeysEnabled: Bool

    /// Settings with these values.
    public init(
        passwordRules: PasswordRules = .init(), signUpDisabled: Bool = false, autoconfirm: Bool = false, providers: [IdentityProvider] = [],
        passkeysEnabled: Bool = false
    ) {
        self.passwordRules = passwordRules
        self.signUpDisabled = signUpDisabled
        self.autoconfirm = autoconfirm
        self.providers = providers
        self.passkeysEnabled = passkeysEnabled
    }

    /// The settings a GoTrue server published (`GoTrueBackend.settings()`), as the forms use
    /// them: no published minimum means GoTrue's default of 6 characters.
    public init(_ settings: GoTrueServerSettings) {
        self.init(
            passwordRules: PasswordRules(minimumLength: max(settings.passwordMinimumLength ?? 6, 1)),
            signUpDisabled: settings.signUpDisabled, autoconfirm: settings.autoconfirm, providers: settings.providers,
            passkeysEnabled: settings.passkeysEnabled)
    }

    /// Reads the settings of the GoTrue server (the Latchkey server or a Supabase project) at
    /// `configuration`.
    /// - Throws: `AuthFailure` (network, server).
    public static func fetch(
        from configuration: GoTrueBackend.Configuration, transport: any HTTPTransport = URLSessionTransport()
    ) async throws -> AuthServerSettings {
        do {
            return AuthServerSettings(try await GoTrueBackend(configuration: configuration, transport: transport).settings())
        } catch {
            throw AuthFailure(error)
        }
    }
}
