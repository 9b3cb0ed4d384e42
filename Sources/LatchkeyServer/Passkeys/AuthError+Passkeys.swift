import HTTPTypes

/// GoTrue's answers for passkeys (`internal/api/passkey_*.go`), with its codes and statuses.
extension AuthError {
    static let passkeysDisabled = AuthError(.notFound, "passkey_disabled", "Passkeys are disabled")
    static let tooManyPasskeys = AuthError(.unprocessableContent, "too_many_passkeys", "Maximum number of passkeys reached")
    static let passkeyExists = AuthError(.unprocessableContent, "webauthn_credential_exists", "This credential is already registered")
    static let passkeyNotFound = AuthError(.notFound, "validation_failed", "Passkey not found")
    static let webAuthnChallengeNotFound = AuthError(.badRequest, "webauthn_challenge_not_found", "Challenge not found or already used")
    static let webAuthnChallengeExpired = AuthError(.badRequest, "webauthn_challenge_expired", "Challenge has expired")
    static let invalidPasskeyCredential = AuthError(.badRequest, "webauthn_verification_failed", "Invalid credential response")
    static let passkeyVerificationFailed = AuthError(.badRequest, "webauthn_verification_failed", "Credential verification failed")
    static let challengeIDRequired = validation("challenge_id is required")
    static let challengeIDNotUUID = validation("challenge_id must be a valid UUID")
    static let credentialRequired = validation("credential is required")
    static let passkeyNameRequired = validation("friendly_name is required")
    static let passkeyNameTooLong = validation("friendly_name must be 120 characters or less")
    static let aal2RequiredForPasskeys = AuthError(
        .forbidden, "insufficient_aal", "AAL2 session is required to manage passkeys when MFA is enabled")
    static let passkeyEmailNotConfirmed = AuthError(.forbidden, "email_not_confirmed", "Email not confirmed")
}
