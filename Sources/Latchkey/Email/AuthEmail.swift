import Foundation
import Logging

/// What goes through the user's mailbox: sign-in codes and links, the sign-up confirmation,
/// password recovery. Reached from the manager as ``SessionManager/email``.
///
/// ```swift
/// // Mail a code and a link; the user types the code…
/// try await manager.email.sendSignInEmail(email: address, redirectTo: callbackURL)
/// try await manager.email.verify(type: .email, email: address, token: code)
/// // …or opens the link, which comes back to the app:
/// try await manager.email.exchangeCode(from: openedURL)
/// ```
///
/// A link comes back with `?code=`, traded for a session with the PKCE verifier kept in the
/// credential store since the email was requested, so the flow survives the app being closed
/// while the user reads the email. Every method throws ``AuthFailure``.
public struct AuthEmail: Sendable {
    let manager: SessionManager

    /// Mails a sign-in link and six-digit code to `email` ("magic link"). The account is
    /// created first when there is none and `createUser` is true.
    ///
    /// The user then either types the code (``verify(type:email:token:)`` with
    /// ``VerificationType/email``) or opens the link, which comes back to `redirectTo` with
    /// `?code=`; hand that URL to ``exchangeCode(from:)``. The answer does not say whether the
    /// address has an account.
    /// - Parameter captchaToken: The token of the server's CAPTCHA, when it asks for one
    ///   (``CaptchaToken``).
    /// - Throws: ``AuthFailure`` (e.g. ``AuthFailure/Category/rateLimited(retryAfter:)``).
    public func sendSignInEmail(email: String, createUser: Bool = true, redirectTo: URL? = nil, captchaToken: String? = nil) async throws {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        manager.logger.info("requesting a sign-in email", metadata: ["operation": "sign_in_email", "email": "\(LogRedaction.email(email))"])
        try await AuthFailure.translating {
            let pkce = try await manager.startPKCEFlow()
            try await CaptchaToken.$current.withValue(captchaToken) {
                try await manager.backend.sendSignInEmail(
                    email: email, createUser: createUser, redirectTo: redirectTo?.absoluteString, codeChallenge: pkce.challenge)
            }
        }
    }

    /// Verifies a one-time code from an email (sign-up confirmation, recovery, sign-in code)
    /// and signs in with the session it yields. For an email change use
    /// ``confirmEmailChange(email:token:)``: with secure email change (GoTrue's default) the
    /// first of its two codes yields no session, which this method reports as an unreadable
    /// answer.
    /// - Throws: ``AuthFailure``.
    @discardableResult
    public func verify(type: VerificationType, email: String, token: String) async throws -> Session {
        try await AuthFailure.translating {
            let session = try await manager.backend.verify(type: type, email: email, token: token)
            return try await manager.commitSignIn(session)
        }
    }

    /// Confirms an email change with the code mailed to `email`, the current address or the new
    /// one. With secure email change (GoTrue's default) both are needed: the first answers `nil`
    /// and changes nothing, the second changes the address and signs in with the session it
    /// yields.
    /// - Throws: ``AuthFailure``.
    @discardableResult
    public func confirmEmailChange(email: String, token: String) async throws -> Session? {
        try await AuthFailure.translating {
            guard let session = try await manager.backend.verifyEmailChange(email: email, token: token) else { return nil }
            return try await manager.commitSignIn(session)
        }
    }

    /// Signs in with the link an email brought back to the app: a PKCE redirect
    /// (`…?code=…`), traded with the verifier kept since the email was requested (a server
    /// without PKCE puts the session in the fragment instead, which is stored the same way). It
    /// reads the URL as ``AuthAccount/session(from:)`` does, which takes these links too.
    /// - Throws: ``AuthFailure``: an error redirect (`?error=…&error_code=otp_expired…`, in the
    ///   query or the fragment) as its category, with the `error_code` in ``AuthFailure/code``;
    ///   ``AuthFailure/Category/invalidInput`` when the URL carries no code, when no email flow
    ///   is waiting for one, or when the link was expired or used.
    @discardableResult
    public func exchangeCode(from url: URL) async throws -> Session {
        try await manager.signIn(fromRedirect: url, operation: "exchange_code")
    }

    /// Sends the sign-up confirmation email again.
    /// - Throws: ``AuthFailure`` (e.g. ``AuthFailure/Category/rateLimited(retryAfter:)``).
    public func resendConfirmation(email: String, captchaToken: String? = nil) async throws {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        try await AuthFailure.translating {
            try await CaptchaToken.$current.withValue(captchaToken) { try await manager.backend.resendConfirmation(email: email) }
        }
    }

    /// Sends a password-reset email ("Forgot Password?") whose code signs in with
    /// ``verify(type:email:token:)`` and ``VerificationType/recovery``; then set the new
    /// password with ``AuthAccount/update(_:)``.
    /// - Throws: ``AuthFailure``.
    public func recoverPassword(email: String, captchaToken: String? = nil) async throws {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        try await AuthFailure.translating {
            try await CaptchaToken.$current.withValue(captchaToken) { try await manager.backend.recoverPassword(email: email) }
        }
    }

    /// Sends a password-reset email whose link comes back to `redirectTo` with `?code=` (hand
    /// it to ``exchangeCode(from:)``) and whose code signs in with ``verify(type:email:token:)``
    /// and ``VerificationType/recovery``. Then set the new password with
    /// ``AuthAccount/update(_:)``.
    /// - Throws: ``AuthFailure``.
    public func recoverPassword(email: String, redirectTo: URL?, captchaToken: String? = nil) async throws {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        try await AuthFailure.translating {
            let pkce = try await manager.startPKCEFlow()
            try await CaptchaToken.$current.withValue(captchaToken) {
                try await manager.backend.recoverPassword(email: email, redirectTo: redirectTo?.absoluteString, codeChallenge: pkce.challenge)
            }
        }
    }

    /// Forgets the PKCE verifier of the email flow in progress, so that the mailed link can no
    /// longer sign in here: for a client that signs in with the mailed code instead (the
    /// terminal app).
    package func discardPendingLink() async {
        try? await manager.store.delete(key: manager.pkceVerifierKey)
    }
}
