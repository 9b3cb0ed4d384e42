import Foundation
import Logging

/// WebAuthn factors: a security key or the device's authenticator as a second factor, through
/// the ``SessionManagerConfiguration/passkeyAuthenticator``.
///
/// ```swift
/// // Add one (the account's first factor, or at aal2):
/// switch try await manager.mfa.enrollWebAuthn(friendlyName: "Security key") {
/// case .verified: break        // this session is aal2 now
/// case .cancelled: break       // the person closed the sheet: say nothing
/// }
/// // Later sign-ins stop at aal1 until the factor is proved:
/// if session.requiresSecondFactor, let factor = session.user.factors.first(where: \.isVerifiedWebAuthn) {
///     try await manager.mfa.verifyWebAuthn(factorID: factor.id)
/// }
/// ```
///
/// The server must have WebAuthn factors on (`latchkey serve --mfa-webauthn-enroll
/// --mfa-webauthn-verify`, GoTrue's `GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED` and `…_VERIFY_ENABLED`).
extension AuthMFA {
    /// Enrolls a WebAuthn factor: the server creates an unverified factor and a `create`
    /// challenge, the authenticator makes the credential after asking the person, and the
    /// server verifies it, raising this session to `aal2` (stored as a refresh stores tokens).
    ///
    /// When the person cancels, the unverified factor is removed again (if that fails, the
    /// server deletes it when it expires).
    /// - Parameter friendlyName: A name to tell factors apart, unique per user.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/invalidInput`` with
    ///   `mfa_factor_name_conflict`, `webauthn_credential_exists` (this authenticator is already
    ///   one of the account's factors or passkeys); ``AuthFailure/Category/permission`` with
    ///   `mfa_webauthn_enroll_not_enabled` or `insufficient_aal`; `mfa_verification_failed` when
    ///   the server refused the credential.
    public func enrollWebAuthn(friendlyName: String? = nil) async throws -> WebAuthnFactorResult {
        let authenticator = try manager.requirePasskeyAuthenticator()
        let factor = try await manager.authorized("enroll_factor") { [backend = manager.backend] token in
            try await backend.enrollWebAuthnFactor(accessToken: token, friendlyName: friendlyName)
        }
        await manager.log("second factor enrolled", "enroll_factor", ["factor_id": "\(factor.id)"])
        let result = try await prove(factorID: factor.id, with: authenticator)
        if result == .cancelled {
            do {
                try await manager.authorized("unenroll_factor") { [backend = manager.backend] token in
                    try await backend.unenrollFactor(accessToken: token, factorID: factor.id)
                }
            } catch {
                await manager.log("could not remove the factor whose enrolment was cancelled", "enroll_factor", ["factor_id": "\(factor.id)"])
            }
        }
        return result
    }

    /// Proves a verified WebAuthn factor: the server issues a `request` challenge allowing only
    /// the factor's credential, the authenticator signs it after asking the person, and the
    /// server verifies the signature, raising this session to `aal2`.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/invalidInput`` with
    ///   `mfa_verification_failed` (the server refused the signature) or `mfa_challenge_expired`
    ///   (the person took too long: try again); ``AuthFailure/Category/rateLimited(retryAfter:)``
    ///   after too many refusals.
    public func verifyWebAuthn(factorID: String) async throws -> WebAuthnFactorResult {
        try await prove(factorID: factorID, with: try manager.requirePasskeyAuthenticator())
    }

    /// Challenges the factor, runs the ceremony the challenge names, and verifies the answer.
    private func prove(factorID: String, with authenticator: any PasskeyAuthenticator) async throws -> WebAuthnFactorResult {
        let challenge = try await challenge(factorID: factorID)
        let response: WebAuthnFactorResponse
        do {
            switch challenge.ceremony {
            case .create(let options)?: response = .registration(try await authenticator.createPasskey(options))
            case .request(let options)?: response = .assertion(try await authenticator.assertPasskey(options))
            case nil: throw AuthFailure(.unknown, code: "validation_failed", detail: "the factor is not a WebAuthn factor")
            }
        } catch PasskeyAuthenticatorError.cancelled {
            await manager.log("a WebAuthn factor's ceremony was cancelled", "verify_factor", ["factor_id": "\(factorID)"])
            return .cancelled
        } catch let failure as AuthFailure {
            throw failure
        } catch {
            throw AuthFailure(passkeyAuthenticator: error)
        }
        _ = try await manager.session(minTTL: 30)
        return .verified(
            try await AuthFailure.translating {
                try await manager.sharedVerify(.verifyFactor(factorID: factorID, challengeID: challenge.id, proof: .webAuthn(response)))
            })
    }
}
