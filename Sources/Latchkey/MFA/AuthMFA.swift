import Foundation
import Logging

/// Second factors: an authenticator app (TOTP), a phone that gets codes by text message (see
/// ``enrollPhone(_:friendlyName:)``) or a security key or device (WebAuthn, see
/// ``enrollWebAuthn(friendlyName:)``) that protects the account beyond its password. Reached
/// from the manager as ``SessionManager/mfa``.
///
/// ```swift
/// // Enrol: show enrollment.uri as a QR code, then confirm with the first code.
/// let enrollment = try await manager.mfa.enrollTOTP(friendlyName: "Phone")
/// try await manager.mfa.challengeAndVerify(factorID: enrollment.factorID, code: firstCode)
///
/// // Later sign-ins stop at aal1 until a code is verified:
/// if session.requiresSecondFactor, let factor = session.user.factors.first(where: \.isVerifiedTOTP) {
///     try await manager.mfa.challengeAndVerify(factorID: factor.id, code: code)
/// }
/// ```
///
/// A verified code renews the tokens at `aal2`: the manager stores them exactly as it stores a
/// refresh (under the cross-process lock; a refresh in flight finishes first and the next one
/// waits) and emits ``SessionEvent/secondFactorVerified(_:)``. Every method throws
/// ``AuthFailure``.
public struct AuthMFA: Sendable {
    let manager: SessionManager

    /// Enrolls an authenticator app (TOTP) as a second factor of the signed-in user.
    ///
    /// Show the user ``TOTPEnrollment/uri`` as a QR code (or ``TOTPEnrollment/secret`` to type
    /// in), then confirm the factor with the first code it shows:
    /// ``challengeAndVerify(factorID:code:)``. Until then the factor is unverified and does not
    /// protect the account. An account that already has a verified factor needs an `aal2`
    /// session to enroll another.
    /// - Parameters:
    ///   - friendlyName: A name to tell factors apart, unique per user (e.g. "Phone").
    ///   - issuer: The service name the authenticator app shows; the server's host when `nil`.
    /// - Throws: ``AuthFailure``: e.g. ``AuthFailure/Category/invalidInput`` (code
    ///   `mfa_factor_name_conflict`) for a name already in use, ``AuthFailure/Category/permission``
    ///   (`insufficient_aal`) when a code is needed first.
    public func enrollTOTP(friendlyName: String? = nil, issuer: String? = nil) async throws -> TOTPEnrollment {
        let enrollment = try await manager.authorized("enroll_factor") { [backend = manager.backend] token in
            try await backend.enrollTOTPFactor(accessToken: token, friendlyName: friendlyName, issuer: issuer)
        }
        await manager.log("second factor enrolled", "enroll_factor", ["factor_id": "\(enrollment.factorID)"])
        return enrollment
    }

    /// Starts a challenge for a factor: the code the user types next is verified against it
    /// (``verify(factorID:challengeID:code:)``).
    /// - Throws: ``AuthFailure`` (``AuthFailure/Category/invalidInput`` with code
    ///   `mfa_factor_not_found` for a factor the account does not have).
    public func challenge(factorID: String) async throws -> FactorChallenge {
        try await manager.authorized("challenge_factor") { [backend = manager.backend] token in
            try await backend.challengeFactor(accessToken: token, factorID: factorID)
        }
    }

    /// Verifies a code from the authenticator app (or the one texted to a phone factor for this
    /// challenge) against a challenge. On success the server answers with new tokens at `aal2`:
    /// they are stored exactly as a refresh stores its tokens (under the cross-process lock;
    /// refreshes wait for it, and one that was running finishes first),
    /// ``SessionEvent/secondFactorVerified(_:)`` is emitted, and an unverified factor becomes
    /// verified.
    ///
    /// A wrong code leaves the session as it was (still `aal1`): ask again.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/invalidInput`` with code
    ///   `mfa_verification_failed` (wrong code) or `mfa_challenge_expired` (start a new
    ///   challenge), ``AuthFailure/Category/rateLimited(retryAfter:)`` after too many attempts.
    @discardableResult
    public func verify(factorID: String, challengeID: String, code: String) async throws -> Session {
        _ = try await manager.session(minTTL: 30)
        let code = code.filter { !$0.isWhitespace }
        return try await AuthFailure.translating {
            try await manager.sharedVerify(.verifyFactor(factorID: factorID, challengeID: challengeID, proof: .code(code)))
        }
    }

    /// Challenges a factor and verifies `code` against it in one step: the usual way to check a
    /// code the user just typed (or to confirm a new factor with its first code).
    /// - Throws: ``AuthFailure``, as ``verify(factorID:challengeID:code:)``.
    @discardableResult
    public func challengeAndVerify(factorID: String, code: String) async throws -> Session {
        let challenge = try await challenge(factorID: factorID)
        return try await verify(factorID: factorID, challengeID: challenge.id, code: code)
    }

    /// The account's factors, verified or not, as the server lists them now (`GET /user`); the
    /// stored user is updated with them.
    /// - Throws: ``AuthFailure``.
    public func listFactors() async throws -> [Factor] {
        try await manager.fetchUser().factors
    }

    /// Removes a factor. Removing a verified one needs an `aal2` session (verify a code first);
    /// the server then lowers the sessions that relied on it to `aal1`, so the tokens and the
    /// user are fetched again afterwards.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/permission`` with code
    ///   `insufficient_aal` when a code must be verified first.
    public func unenroll(factorID: String) async throws {
        let wasVerified = await manager.record?.session.user.factors.first { $0.id == factorID }?.status != .unverified
        try await manager.authorized("unenroll_factor") { [backend = manager.backend] token in
            try await backend.unenrollFactor(accessToken: token, factorID: factorID)
        }
        await manager.log("second factor removed", "unenroll_factor", ["factor_id": "\(factorID)"])
        if wasVerified {
            do {
                try await manager.sharedRefresh()
            } catch {
                await manager.log("could not renew the tokens after removing a factor", "unenroll_factor")
            }
        }
        do {
            try await manager.fetchUser()
        } catch {
            await manager.log("could not fetch the user after removing a factor", "unenroll_factor")
        }
    }
}
