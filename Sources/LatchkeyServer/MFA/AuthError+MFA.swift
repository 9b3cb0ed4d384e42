import HTTPTypes

/// GoTrue's answers for multi-factor authentication, with its codes and statuses.
extension AuthError {
    static let factorNotFound = AuthError(.notFound, "mfa_factor_not_found", "Factor not found")
    static let factorIDNotUUID = AuthError(.notFound, "validation_failed", "factor_id must be an UUID")
    static let challengeNotFound = AuthError(
        .unprocessableContent, "mfa_factor_not_found", "MFA factor with the provided challenge ID not found")
    static let challengeIPMismatch = AuthError(
        .unprocessableContent, "mfa_ip_address_mismatch", "Challenge and verify IP addresses mismatch.")
    static let invalidTOTPCode = AuthError(.unprocessableContent, "mfa_verification_failed", "Invalid TOTP code entered")
    static let invalidPhoneFactorCode = AuthError(.unprocessableContent, "mfa_verification_failed", "Invalid MFA Phone code entered")
    static let phoneFactorPhoneRequired = validation("Phone number required to enroll Phone factor")
    static let verifiedPhoneFactorExists = AuthError(
        .unprocessableContent, "mfa_verified_factor_exists", "A verified phone factor already exists, unenroll the existing factor to continue")
    static let phoneFactorVerifyDisabled = AuthError(
        .unprocessableContent, "mfa_phone_verify_not_enabled", "MFA verification is disabled for Phone")
    /// 500: the SMS provider did not take a phone factor's code.
    static let phoneFactorMessageNotSent = AuthError(.internalServerError, "unexpected_failure", "error sending message")
    /// 500: the send SMS hook refused or failed a phone factor's code (GoTrue hides its error here).
    static let phoneFactorHookFailed = AuthError(.internalServerError, "unexpected_failure", "error invoking hook")
    static let emptyFactorCode = validation("Code needs to be non-empty")
    static let tooManyFactors = AuthError(
        .unprocessableContent, "too_many_enrolled_mfa_factors", "Maximum number of verified factors reached, unenroll to continue")
    static let aal2RequiredToEnroll = AuthError(.forbidden, "insufficient_aal", "AAL2 required to enroll a new factor")
    static let aal2RequiredToUnenroll = AuthError(.unprocessableContent, "insufficient_aal", "AAL2 required to unenroll verified factor")
    static let aal2RequiredToUpdateUser = AuthError(
        .unauthorized, "insufficient_aal", "AAL2 session is required to update email or password when MFA is enabled.")
    static let anonymousNotAllowed = AuthError(.forbidden, "no_authorization", "Anonymous user not allowed to perform these actions")
    static let invalidFactorType = validation("factor_type needs to be totp, phone, or webauthn")
    static let phoneFactorEnrollDisabled = AuthError(
        .unprocessableContent, "mfa_phone_enroll_not_enabled", "MFA enroll is disabled for Phone")
    static let webAuthnFactorEnrollDisabled = AuthError(
        .unprocessableContent, "mfa_webauthn_enroll_not_enabled", "MFA enroll is disabled for WebAuthn")
    static let totpEnrollDisabled = AuthError(.unprocessableContent, "mfa_totp_enroll_not_enabled", "MFA enroll is disabled for TOTP")
    static let totpVerifyDisabled = AuthError(.unprocessableContent, "mfa_totp_verify_not_enabled", "MFA verification is disabled for TOTP")
    static let webAuthnVerifyDisabled = AuthError(
        .unprocessableContent, "mfa_webauthn_verify_not_enabled", "MFA verification is disabled for WebAuthn")
    static let webAuthnParamsRequired = validation("WebAuthn config required")
    static let webAuthnTypeInvalid = validation("WebAuthn type must be create or request")
    static let webAuthnResponseRequired = validation("credential_response required")
    static let webAuthnResponseInvalid = validation("Invalid credential_response")
    /// The ceremony named in the body is not the one the challenge opened.
    static let webAuthnCeremonyMismatch = validation(
        "WebAuthn type does not match the challenge: create for an unverified factor, request for a verified one")
    /// The response did not verify (signature, origin, challenge, flags, counter): every such
    /// refusal is this one answer.
    static let webAuthnFactorRefused = AuthError(.unprocessableContent, "mfa_verification_failed", "WebAuthn response could not be verified")

    /// 422 `mfa_factor_name_conflict`.
    static func factorNameConflict(_ name: String) -> AuthError {
        AuthError(
            .unprocessableContent, "mfa_factor_name_conflict", "A factor with the friendly name \"\(name.prefix(100))\" for this user already exists")
    }

    /// 422 `mfa_challenge_expired`.
    static func challengeExpired(_ id: String) -> AuthError {
        AuthError(
            .unprocessableContent, "mfa_challenge_expired",
            "MFA challenge \(id) has expired, verify against another challenge or create a new challenge.")
    }
}
