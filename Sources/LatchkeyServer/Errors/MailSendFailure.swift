import HTTPTypes
import Logging

extension AuthError {
    /// GoTrue's answer when an email could not be sent: 500 `unexpected_failure` with
    /// "Error sending confirmation email", "… recovery email", "… email change email"
    /// (`internal/api/mail.go`, `apierrors.NewInternalServerError`).
    public static func emailSendFailed(_ email: SentEmail) -> AuthError {
        AuthError(.internalServerError, "unexpected_failure", "Error sending \(email.rawValue) email")
    }

    /// Which email a route sends, in GoTrue's words.
    public enum SentEmail: String, Sendable {
        case confirmation
        case recovery
        case emailChange = "email change"
    }
}

/// Runs `body`; a ``MailDeliveryFailure`` from it is logged (what failed and why, never a
/// credential: the mailers' errors hold none) and answered as GoTrue answers a failed send.
func answeringMailFailure<T>(
    _ email: AuthError.SentEmail, logger: Logger, _ body: () async throws -> T
) async throws -> T {
    do {
        return try await body()
    } catch let failure as any MailDeliveryFailure {
        logger.error(
            "email not sent",
            metadata: ["email": "\(email.rawValue)", "error": "\(failure.description)", "transient": "\(failure.isTransient)"])
        throw AuthError.emailSendFailed(email)
    }
}
