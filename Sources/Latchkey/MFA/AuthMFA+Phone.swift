import Foundation
import Logging

/// Phone factors: a code texted to the user's phone (by SMS or WhatsApp) as the second factor.
///
/// ```swift
/// // Add one: the server texts a code to the number, the user types it back.
/// let factor = try await manager.mfa.enrollPhone("+1 555 555 0100", friendlyName: "My phone")
/// let challenge = try await manager.mfa.challenge(factorID: factor.id, channel: .sms)
/// try await manager.mfa.verify(factorID: factor.id, challengeID: challenge.id, code: typedCode)
///
/// // Later sign-ins stop at aal1 until a texted code is verified:
/// if session.requiresSecondFactor, let factor = session.user.factors.first(where: \.isVerifiedPhone) {
///     let challenge = try await manager.mfa.challenge(factorID: factor.id, channel: .sms)
///     try await manager.mfa.verify(factorID: factor.id, challengeID: challenge.id, code: typedCode)
/// }
/// ```
///
/// The server must have phone factors on (`latchkey serve --mfa-phone-enroll --mfa-phone-verify`,
/// GoTrue's `GOTRUE_MFA_PHONE_ENROLL_ENABLED` and `…_VERIFY_ENABLED`) and an SMS provider.
extension AuthMFA {
    /// Enrolls `phone` (E.164; a leading `+` and spaces are allowed) as a second factor of the
    /// signed-in user. The factor is unverified, and protects nothing, until a code texted to
    /// it is verified: ``challenge(factorID:channel:)`` then
    /// ``verify(factorID:challengeID:code:)``. An account that already has a verified factor
    /// needs an `aal2` session to enroll another. Enrolling sends no message.
    /// - Parameter friendlyName: A name to tell factors apart, unique per user.
    /// - Returns: The new factor (``Factor/phone`` is the number as the server answered it).
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/invalidInput`` with
    ///   `validation_failed` (not a phone number), `mfa_factor_name_conflict`, or
    ///   `mfa_verified_factor_exists` when the number is already a verified factor of the account;
    ///   ``AuthFailure/Category/permission`` with `mfa_phone_enroll_not_enabled` or
    ///   `insufficient_aal`.
    public func enrollPhone(_ phone: String, friendlyName: String? = nil) async throws -> Factor {
        let factor = try await manager.authorized("enroll_factor") { [backend = manager.backend] token in
            try await backend.enrollPhoneFactor(accessToken: token, phone: phone, friendlyName: friendlyName)
        }
        await manager.log("second factor enrolled", "enroll_factor", ["factor_id": "\(factor.id)"])
        return factor
    }

    /// Starts a challenge for a phone factor: the server texts a new code to the factor's number,
    /// by SMS or WhatsApp (`channel`). Verify the code the user types against the challenge
    /// with ``verify(factorID:challengeID:code:)``; it verifies no other challenge.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/rateLimited(retryAfter:)`` when the
    ///   factor was challenged less than the server's interval ago (a minute by default),
    ///   ``AuthFailure/Category/invalidInput`` with `mfa_factor_not_found`, or the server's
    ///   answer when the text could not be sent.
    public func challenge(factorID: String, channel: PhoneChannel) async throws -> FactorChallenge {
        try await manager.authorized("challenge_factor") { [backend = manager.backend] token in
            try await backend.challengePhoneFactor(accessToken: token, factorID: factorID, channel: channel)
        }
    }
}
