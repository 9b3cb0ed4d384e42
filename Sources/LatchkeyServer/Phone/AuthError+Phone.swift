import HTTPTypes

/// GoTrue's answers for phone sign-in, with its codes and statuses.
extension AuthError {
    /// `PUT /user` with a number another user has (the administrator's `phone_exists` words differ).
    static let phoneTaken = AuthError(.unprocessableContent, "phone_exists", "A user with this phone number has already been registered")
    static let phoneNotConfirmed = AuthError(.badRequest, "phone_not_confirmed", "Phone not confirmed")
    /// `GET /reauthenticate` for an account whose only number is not confirmed yet.
    static let verifyPhoneFirst = AuthError(.unprocessableContent, "phone_not_confirmed", "Please verify your phone first.")
    /// The password grant with a phone number while phone sign-in is off (GoTrue answers 422 there).
    static let phoneLoginsDisabled = AuthError(.unprocessableContent, "phone_provider_disabled", "Phone logins are disabled")

    /// 429: a code was sent to the user less than the maximum frequency ago.
    static func smsTooSoon(retryAfter: Int) -> AuthError {
        AuthError(
            .tooManyRequests, "over_sms_send_rate_limit", "For security purposes, you can only request this after \(retryAfter) seconds.",
            retryAfter: retryAfter)
    }

    /// 429: the server sent as many messages as `GOTRUE_RATE_LIMIT_SMS_SENT` allows.
    static func smsRateLimited(retryAfter: Int) -> AuthError {
        AuthError(.tooManyRequests, "over_sms_send_rate_limit", "SMS rate limit exceeded", retryAfter: max(1, retryAfter))
    }

    /// 500: the SMS provider cannot send (unknown, or missing its credentials), as GoTrue answers.
    static let smsProviderUnavailable = AuthError(.internalServerError, "unexpected_failure", "Unable to get SMS provider")
    /// 500: a phone factor's code with an SMS provider that cannot send, as GoTrue answers.
    static let phoneFactorProviderUnavailable = AuthError(.internalServerError, "unexpected_failure", "Failed to get SMS provider")

    /// 422: the provider did not take the message; `reason` is the sender's error description.
    static func smsSendFailed(_ purpose: String, reason: String) -> AuthError {
        AuthError(.unprocessableContent, "sms_send_failed", "Error sending \(purpose) OTP to provider: \(reason)")
    }
}
