import Foundation
import Latchkey

/// What the auth server says about itself (`GET /settings`): what the sign-up and login forms
/// need to know before anyone types. The same value `GoTrueBackend.settings()` answers, with the
/// forms' reading of it (``passwordRules``) and a way to fetch it.
public typealias AuthServerSettings = GoTrueServerSettings

extension GoTrueServerSettings {
    /// The password rules the sign-up form checks: the Latchkey server's `password_min_length`;
    /// upstream GoTrue and Supabase do not publish it, and then GoTrue's default minimum (6)
    /// applies.
    public var passwordRules: PasswordRules { PasswordRules(minimumLength: max(passwordMinimumLength ?? 6, 1)) }

    /// Settings with these values, the password rules as the forms know them.
    public init(
        passwordRules: PasswordRules, signUpDisabled: Bool = false, autoconfirm: Bool = false, providers: [IdentityProvider] = [],
        passkeysEnabled: Bool = false
    ) {
        self.init(
            passwordMinimumLength: passwordRules.minimumLength, signUpDisabled: signUpDisabled, autoconfirm: autoconfirm,
            providers: providers, passkeysEnabled: passkeysEnabled)
    }

    /// Reads the settings of the GoTrue server (the Latchkey server or a Supabase project) at
    /// `configuration`.
    /// - Throws: `AuthFailure` (network, server).
    public static func fetch(
        from configuration: GoTrueBackend.Configuration, transport: any HTTPTransport = URLSessionTransport()
    ) async throws -> AuthServerSettings {
        do {
            return try await GoTrueBackend(configuration: configuration, transport: transport).settings()
        } catch {
            throw AuthFailure(error)
        }
    }
}
