import Foundation
import HTTPTypes

extension AuthError {
    /// 422 `hook_timeout`: the hook did not answer in time.
    static func hookTimeout(seconds: Duration) -> AuthError {
        AuthError(
            .unprocessableContent, "hook_timeout",
            "Failed to reach hook within maximum time of \(String(format: "%f", Double(seconds.components.seconds))) seconds")
    }
    /// 422 `hook_timeout_after_retry`: the hook could not be reached.
    static let hookUnreachable = AuthError(.unprocessableContent, "hook_timeout_after_retry", "Failed to reach hook after maximum retries")
    /// 400 `hook_payload_invalid_content_type`: the hook did not answer JSON.
    static func hookContentType(_ message: String) -> AuthError { AuthError(.badRequest, "hook_payload_invalid_content_type", message) }
    /// 422 `hook_payload_over_size_limit`: the hook's answer is too large.
    static func hookPayloadTooLarge(limit: Int) -> AuthError {
        AuthError(.unprocessableContent, "hook_payload_over_size_limit", "Payload size exceeded size limit of \(limit) bytes")
    }
    /// 400 `invalid_credentials` with the password verification attempt hook's message.
    static func passwordAttemptRejected(_ message: String) -> AuthError { AuthError(.badRequest, "invalid_credentials", message) }
    /// 403 `mfa_verification_rejected` with the MFA verification attempt hook's message.
    static func mfaAttemptRejected(_ message: String) -> AuthError { AuthError(.forbidden, "mfa_verification_rejected", message) }
    /// 500 `unexpected_failure` with GoTrue's words for what the hook did wrong.
    static func hookFailed(_ message: String) -> AuthError { AuthError(.internalServerError, "unexpected_failure", message) }
}
