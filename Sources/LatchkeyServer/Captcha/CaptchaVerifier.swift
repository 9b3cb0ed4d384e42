import Foundation
import Logging

/// CAPTCHA protection, as GoTrue's `GOTRUE_SECURITY_CAPTCHA_*`: the token a page got from
/// hCaptcha or Cloudflare Turnstile is checked with the provider's `siteverify` before the
/// request is served.
///
/// Each check is the provider's answer to this token now: nothing is cached, so a token the
/// provider already saw (a replay) is refused as the provider refuses it.
struct CaptchaVerifier: Sendable {
    /// The providers GoTrue knows, and their `siteverify` endpoints.
    enum Provider: String, Sendable, CaseIterable {
        case hcaptcha
        case turnstile

        var siteverifyURL: String {
            switch self {
            case .hcaptcha: "https://hcaptcha.com/siteverify"
            case .turnstile: "https://challenges.cloudflare.com/turnstile/v0/siteverify"
            }
        }
    }

    /// The provider's answer.
    struct Verdict: Decodable, Sendable {
        var success: Bool
        var errorCodes: [String]?

        enum CodingKeys: String, CodingKey {
            case success
            case errorCodes = "error-codes"
        }
    }

    let http: any ProviderHTTP
    let secret: String
    let url: String
    let logger: Logger

    init(http: any ProviderHTTP, secret: String, url: String, logger: Logger) {
        (self.http, self.secret, self.url, self.logger) = (http, secret, url, logger)
    }

    /// The verifier ``CaptchaSettings`` describe, or `nil` when CAPTCHA protection is off (or
    /// has no secret, or names a provider GoTrue does not know: the configuration check refuses
    /// both at start). The `siteverify` URL override counts only while loopback providers are
    /// allowed (in tests).
    init?(_ configuration: ServerConfiguration, http: any ProviderHTTP, logger: Logger) {
        let settings = configuration.captcha
        guard settings.enabled, let secret = settings.secret, let provider = Provider(rawValue: settings.provider) else { return nil }
        let override = configuration.external.allowLoopbackProviders ? settings.siteverifyURLOverride : nil
        self.init(http: http, secret: secret.trimmingCharacters(in: .whitespaces), url: override ?? provider.siteverifyURL, logger: logger)
    }

    /// Refuses the request unless the provider accepts `token` from `clientIP`: 400
    /// `captcha_failed` without a token or when the provider says no (its error codes in the
    /// message, as GoTrue), 500 when the provider could not be asked.
    func verify(token: String?, clientIP: String) async throws {
        let token = token?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        guard !token.isEmpty else { throw AuthError.captchaMissing }
        let verdict: Verdict
        do {
            guard let endpoint = URL(string: url) else { throw ProviderFetchError("the siteverify URL is not a URL") }
            let response = try await http.send(
                .form(endpoint, [("secret", secret), ("response", token), ("remoteip", clientIP)]))
            verdict = try JSONDecoder().decode(Verdict.self, from: response.body)
        } catch {
            logger.error("CAPTCHA verification could not be done", metadata: ["error": "\(error)"])
            throw AuthError.captchaUnavailable
        }
        guard verdict.success else {
            logger.info("CAPTCHA refused", metadata: ["error_codes": "\((verdict.errorCodes ?? []).joined(separator: ","))"])
            throw AuthError.captchaRefused(verdict.errorCodes ?? [])
        }
    }
}
