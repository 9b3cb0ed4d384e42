import HTTPTypes

/// GoTrue's answers for passkeys (`internal/api/passkey_*.go`), with its codes and statuses.
extension AuthError {
    package static let passkeysDisabled = AuthError(.notFound, "passkey_disabled", "Passkeys are disabled")
    package static let tooManyPasskeys = AuthError(.unprocessableContent, "too_many_passkeys", "Maximum number of passkeys reached")
    package static let passkeyExists = AuthError(.unprocessableContent, "webauthn_credential_exists", "This credential is already registered")
    package static let passkeyNotFound = AuthError(.notFound, "validation_failed", "Passkey not found")
    package static let webAuthnChallengeNotFound = AuthError(.badRequest, "webauthn_challenge_not_found", "Challenge not found or already used")
    package static let webAuthnChallengeExpired = AuthError(.badRequest, "webauthn_challenge_expired", "Challenge has expired")
    package static let invalidPasskeyCredential = AuthError(.badRequest, "webauthn_verification_failed", "Invalid credential response")
    package static let passkeyVerificationFailed = AuthError(.badRequest, "webauthn_verification_failed", "Credential verification failed")
    package static let challengeIDRequired = validation("challenge_id is required")
    package static let challengeIDNotUUID = validation("challenge_id must be a valid UUID")
    package static let credentialRequired = validation("credential is required")
    package static let passkeyNameRequired = validation("friendly_name is required")
    package static let passkeyNameTooLong = validation("friendly_name must be 120 characters or less")
    package static let aal2RequiredForPasskeys = AuthError(
        .forbidden, "insufficient_aal", "AAL2 session is required to manage passkeys when MFA is enabled")
    package static let passkeyEmailNotConfirmed = AuthError(.forbidden, "email_not_confirmed", "Email not confirmed")
}
