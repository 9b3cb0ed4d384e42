/// The CAPTCHA token (hCaptcha or Cloudflare Turnstile) of the call in progress, for a server
/// that asks for one on sign-up, sign-in and the emails it sends (GoTrue's
/// `GOTRUE_SECURITY_CAPTCHA_ENABLED`).
///
/// The app passes the token its CAPTCHA widget produced to the call it protects, e.g.
/// ``AuthAccount/signIn(email:password:captchaToken:)``; the call makes it ``current`` for the
/// backend requests it makes, and ``GoTrueBackend`` sends it as GoTrue's
/// `gotrue_meta_security.captcha_token` in the request body. An ``AuthBackend`` for another
/// server reads ``current`` the same way. A token is good for one request: solve the CAPTCHA
/// again before retrying a refused call.
public enum CaptchaToken {
    /// The token for the backend requests of the current task, or `nil`.
    @TaskLocal public static var current: String?
}

/// A request body with GoTrue's `gotrue_meta_security.captcha_token` added beside its fields.
struct CaptchaProtectedBody: Encodable, Sendable {
    let body: any Encodable & Sendable
    let captchaToken: String

    private enum Keys: String, CodingKey { case gotrue_meta_security }
    private struct Security: Encodable { let captcha_token: String }

    func encode(to encoder: any Encoder) throws {
        try body.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(Security(captcha_token: captchaToken), forKey: .gotrue_meta_security)
    }
}
