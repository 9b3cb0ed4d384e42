import HTTPTypes

/// CAPTCHA protection's answers, as GoTrue words them.
extension AuthError {
    static let captchaMissing = AuthError(
        .badRequest, "captcha_failed", "captcha protection: request disallowed (no captcha_token found)")
    static let captchaUnavailable = AuthError(.internalServerError, "unexpected_failure", "captcha verification process failed")
    /// 400 `captcha_failed` with the provider's error codes, as GoTrue words it.
    static func captchaRefused(_ codes: [String]) -> AuthError {
        AuthError(
            .badRequest, "captcha_failed",
            "captcha protection: request disallowed (\(codes.prefix(5).map { String($0.prefix(40)) }.joined(separator: ", ")))")
    }
}
