import Foundation
import Logging

extension SessionManager {
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
        let enrollment = try await authorized("enroll_factor") { [backend] token in
            try await backend.enrollTOTPFactor(accessToken: token, friendlyName: friendlyName, issuer: issuer)
        }
        logger.info("second factor enrolled", metadata: metadata("enroll_factor").merging(
            ["factor_id": "\(enrollment.factorID)"], uniquingKeysWith: { $1 }))
        return enrollment
    }

    /// Starts a challenge for a factor: the code the user types next is verified against it
    /// (``verify(factorID:challengeID:code:)``).
    /// - Throws: ``AuthFailure`` (``AuthFailure/Category/invalidInput`` with code
    ///   `mfa_factor_not_found` for a factor the account does not have).
    public func challenge(factorID: String) async throws -> FactorChallenge {
        try await authorized("challenge_factor") { [backend] token in
            try await backend.challengeFactor(accessToken: token, factorID: factorID)
        }
    }

    /// Verifies a code from the authenticator app against a challenge. On success the server
    /// answers with new tokens at `aal2`: they are stored exactly as a refresh stores its tokens
    /// (under the cross-process lock; refreshes wait for it, and one that was running finishes
    /// first), ``SessionEvent/secondFactorVerified(_:)`` is emitted, and an unverified factor
    /// becomes verified.
    ///
    /// A wrong code leaves the session as it was (still `aal1`): ask again.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/invalidInput`` with code
    ///   `mfa_verification_failed` (wrong code) or `mfa_challenge_expired` (start a new
    ///   challenge), ``AuthFailure/Category/rateLimited(retryAfter:)`` after too many attempts.
    @discardableResult
    public func verify(factorID: String, challengeID: String, code: String) async throws -> Session {
        _ = try await session(minTTL: 30)
        let code = code.filter { !$0.isWhitespace }
        do {
            return try await sharedVerify(.verifyFactor(factorID: factorID, challengeID: challengeID, code: code))
        } catch {
            throw AuthFailure(error)
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
        try await refreshUser().factors
    }

    /// Removes a factor. Removing a verified one needs an `aal2` session (verify a code first);
    /// the server then lowers the sessions that relied on it to `aal1`, so the tokens and the
    /// user are fetched again afterwards.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/permission`` with code
    ///   `insufficient_aal` when a code must be verified first.
    public func unenroll(factorID: String) async throws {
        let wasVerified = record?.session.user.factors.first { $0.id == factorID }?.status != .unverified
        try await authorized("unenroll_factor") { [backend] token in
            try await backend.unenrollFactor(accessToken: token, factorID: factorID)
        }
        logger.info("second factor removed", metadata: metadata("unenroll_factor").merging(
            ["factor_id": "\(factorID)"], uniquingKeysWith: { $1 }))
        if wasVerified {
            do {
                try await sharedRefresh()
            } catch {
                logger.info("could not renew the tokens after removing a factor", metadata: metadata("unenroll_factor"))
            }
        }
        do {
            try await refreshUser()
        } catch {
            logger.info("could not fetch the user after removing a factor", metadata: metadata("unenroll_factor"))
        }
    }

    // MARK: - Internals

    /// Emits ``SessionEvent/secondFactorRequired(_:)`` when `session` still needs a code.
    func announceSecondFactorIfRequired(_ session: Session) {
        guard session.requiresSecondFactor else { return }
        logger.info("a second factor is required", metadata: metadata("second_factor"))
        broadcaster.emit(.secondFactorRequired(session))
    }

    /// Runs a request with a valid access token; a definitive answer (session revoked, account
    /// deleted or disabled) ends the session, like a refresh's.
    @discardableResult
    private func authorized<T: Sendable>(_ operation: String, _ request: @Sendable (String) async throws -> T) async throws -> T {
        let session = try await self.session(minTTL: 30)
        let generation = self.generation
        do {
            return try await request(session.accessToken)
        } catch {
            let backendError = BackendError(error)
            if let reason = backendError.definitiveSignOutReason {
                logger.notice("server ended the session", metadata: metadata(operation).merging(
                    ["reason": "\(reason)"], uniquingKeysWith: { $1 }))
                await endSession(reason, ifGeneration: generation)
            }
            throw AuthFailure(backend: backendError)
        }
    }

    /// The single-flight rotation for a verification: waits for any refresh or verification in
    /// flight, then runs this one while refreshes wait for it.
    private func sharedVerify(_ rotation: Rotation) async throws -> Session {
        while true {
            if let refreshTask {
                _ = try? await refreshTask.value
            } else if let verifyTask {
                _ = try? await verifyTask.value
            } else {
                break
            }
        }
        guard let record, state.isSignedIn else { throw AuthFailure(.notSignedIn) }
        let generation = self.generation
        let task = Task { try await self.runRotation(rotation, from: record, generation: generation) }
        verifyTask = task
        return try await task.value
    }
}
