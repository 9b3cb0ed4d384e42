import Foundation
import Logging

/// Signing in with a phone number: the server texts a code, the user types it. Reached from the
/// manager as ``SessionManager/phone``.
///
/// ```swift
/// try await manager.phone.sendSignInCode(phone: "+1 555 555 0100")
/// let session = try await manager.phone.verify(phone: "+1 555 555 0100", code: typedCode)
/// ```
///
/// The server needs phone sign-in on (`latchkey serve --phone-enabled` and an SMS provider, or
/// `--sms-test-otp` for test numbers). Numbers are E.164: a leading `+` and spaces are allowed.
/// Every method throws ``AuthFailure``.
public struct AuthPhone: Sendable {
    let manager: SessionManager

    /// Texts a sign-in code to `phone`, by SMS or WhatsApp (`channel`). The account is created
    /// first when there is none and `createUser` is true. The answer does not say whether the
    /// number has an account; the user then types the code into ``verify(phone:code:)``.
    /// - Parameter captchaToken: The token of the server's CAPTCHA, when it asks for one
    ///   (``CaptchaToken``).
    /// - Throws: ``AuthFailure`` (e.g. ``AuthFailure/Category/rateLimited(retryAfter:)`` when a
    ///   code was sent less than a minute ago).
    public func sendSignInCode(phone: String, createUser: Bool = true, channel: PhoneChannel = .sms, captchaToken: String? = nil) async throws {
        manager.logger.info("requesting a sign-in code by SMS", metadata: ["operation": "sign_in_sms"])
        try await AuthFailure.translating {
            try await CaptchaToken.$current.withValue(captchaToken) {
                try await manager.backend.sendSignInSMS(phone: phone, createUser: createUser, channel: channel)
            }
        }
    }

    /// Verifies a code texted to `phone` and signs in with the session it yields; the number is
    /// confirmed. A code works once and for a short time (the server's `--sms-otp-exp`).
    /// - Throws: ``AuthFailure`` (a wrong or expired code: the server's `otp_expired`).
    @discardableResult
    public func verify(phone: String, code: String) async throws -> Session {
        try await AuthFailure.translating {
            let session = try await manager.backend.verifyPhone(phone: phone, token: code.trimmingCharacters(in: .whitespaces))
            return try await manager.commitSignIn(session)
        }
    }
}
