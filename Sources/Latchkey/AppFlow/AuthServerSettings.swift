import Foundation

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

    /// Settings with these values.
    public init(passwordRules: PasswordRules = .init(), signUpDisabled: Bool = false, autoconfirm: Bool = false) {
        self.passwordRules = passwordRules
        self.signUpDisabled = signUpDisabled
        self.autoconfirm = autoconfirm
    }

    /// Reads the settings of the GoTrue server (the Latchkey server or a Supabase project) at
    /// `configuration`.
    /// - Throws: ``AuthFailure`` (network, server).
    public static func fetch(
        from configuration: GoTrueBackend.Configuration, transport: any HTTPTransport = URLSessionTransport()
    ) async throws -> AuthServerSettings {
        var headers = configuration.additionalHeaders
        headers["Accept"] = "application/json"
        if let apiKey = configuration.apiKey {
            headers["apikey"] = apiKey
            headers["Authorization"] = "Bearer \(apiKey)"
        }
        let request = HTTPRequest(
            method: "GET", url: configuration.baseURL.appendingPathComponent("settings"), headers: headers,
            timeout: configuration.requestTimeout)
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch {
            throw AuthFailure(error)
        }
        guard (200..<300).contains(response.status) else {
            throw AuthFailure(backend: GoTrueBackend.error(from: response))
        }
        struct Body: Decodable {
            var password_min_length: Int?
            var disable_signup: Bool?
            var mailer_autoconfirm: Bool?
        }
        guard let body = try? JSONDecoder().decode(Body.self, from: response.body) else {
            throw AuthFailure(.server, code: "invalid_response")
        }
        return AuthServerSettings(
            passwordRules: PasswordRules(minimumLength: max(body.password_min_length ?? 6, 1)),
            signUpDisabled: body.disable_signup ?? false,
            autoconfirm: body.mailer_autoconfirm ?? false)
    }
}
