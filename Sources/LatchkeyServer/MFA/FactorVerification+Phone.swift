import Foundation
import LatchkeyWire
import Logging

/// Verifying a phone factor: `{"challenge_id": …, "code": …}`, as GoTrue's `verifyPhoneFactor`.
///
/// - The challenge is checked as for TOTP: the factor's, unspent, from the same address, not
///   expired (an expired one is deleted).
/// - The code must be the one sent for this challenge: its hash, bound to the challenge, is
///   compared in constant time, so a code sent for another challenge (or another user's) never
///   matches. A wrong code is 422 `mfa_verification_failed` "Invalid MFA Phone code entered",
///   audited and counted against the factor like a wrong TOTP code.
/// - With a provider that checks its own codes (Twilio Verify) the provider checks the code,
///   after the challenge passed the checks above; a code it does not approve is GoTrue's 403
///   `otp_expired`, counted against the factor too.
/// - With the MFA verification attempt hook on, it is asked once the challenge passed those
///   checks, told whether the code is right, and may refuse it as for TOTP.
/// - Success spends the challenge (its code works once), verifies the factor and raises the
///   session as TOTP does, with `mfa/phone` in its `amr`.
extension FactorVerification {
    func verifyPhone(
        _ factorID: UUID, with body: VerifyFactorBody, by signedIn: BearerAuthentication.Authenticated, ipAddress: String,
        messages: PhoneFactorMessages
    ) async throws -> SessionResponse {
        let user = signedIn.user
        guard let code = body.code, !code.isEmpty else { throw AuthError.emptyFactorCode }
        guard let challengeID = body.challenge_id.flatMap(UUID.init(uuidString:)) else { throw AuthError.challengeNotFound }
        try await limits.checkMFACodeAttempts(for: factorID)
        let rules = rules
        var approvedByProvider = false
        if let checker = messages.sender as? any SMSCodeChecker {
            approvedByProvider = try await check(code, factorID, challengeID: challengeID, by: signedIn, ipAddress: ipAddress, with: checker)
        }
        // The hook is told what the provider said, or what the stored code says.
        if let attemptHook {
            let opened: Bool? =
                approvedByProvider
                ? true
                : try await verdict(on: factorID, type: FactorRecord.phoneType, challengeID: challengeID, by: signedIn, ipAddress: ipAddress) {
                    _, challenge, _ in messages.matches(code, challenge)
                }
            if let valid = opened {
                try await ask(attemptHook, valid: valid, factor: factorID, of: FactorRecord.phoneType, user: user, ipAddress: ipAddress)
            }
        }
        return try await run(factorID, challengeID: challengeID, by: signedIn, counting: .invalidPhoneFactorCode, "wrong phone code") {
            [approvedByProvider] state, now, refreshToken in
            let opened = Self.openChallenge(
                state, factorID: factorID, type: FactorRecord.phoneType, otherwise: .factorNotFound, user: user, ipAddress: ipAddress, now: now,
                rules: rules)
            let (factor, challenge, session): (FactorRecord, ChallengeRecord, SessionRecord)
            switch opened {
            case .success(let found): (factor, challenge, session) = found
            case .failure(let refusal): return FactorPlan(changes: refusal.changes, result: .failure(refusal.error))
            }
            var traits: [String: JSONValue] = [
                "factor_id": .string(factor.id.lowercasedString), "challenge_id": .string(challenge.id.lowercasedString),
                "factor_type": .string(factor.factorType),
            ]
            guard approvedByProvider || messages.matches(code, challenge) else {
                traits["error_code"] = .string(AuthError.invalidPhoneFactorCode.code)
                return FactorPlan(
                    changes: [.audit(Self.audit(user, traits: traits, ipAddress: ipAddress, now: now))], result: .failure(.invalidPhoneFactorCode))
            }
            return Self.success(
                factor: factor, method: "mfa/phone", session: session, challenge: challenge, state: state, user: user, traits: traits,
                ipAddress: ipAddress, now: now, refreshToken: refreshToken)
        }
    }

    /// Asks the provider whether `code` is the one it sent for the challenge, once the challenge
    /// passed the checks every verification makes (an expired one is deleted). Not approved (or
    /// the provider not reached): 403 `otp_expired`, counted against the factor.
    private func check(
        _ code: String, _ factorID: UUID, challengeID: UUID, by signedIn: BearerAuthentication.Authenticated, ipAddress: String,
        with checker: any SMSCodeChecker
    ) async throws -> Bool {
        let (user, rules, now) = (signedIn.user, rules, clock.now())
        let opened = try await store.changeFactors(of: user.id, challengeID: challengeID, sessionID: signedIn.session.id) { state in
            switch Self.openChallenge(
                state, factorID: factorID, type: FactorRecord.phoneType, otherwise: .factorNotFound, user: user, ipAddress: ipAddress, now: now,
                rules: rules)
            {
            case .success(let (factor, _, _)): FactorPlan(changes: [], result: FactorOutcome<String>.success(factor.phone ?? ""))
            case .failure(let refusal): FactorPlan(changes: refusal.changes, result: .failure(refusal.error))
            }
        }
        let phone = try opened.get()
        var approved = false
        do {
            approved = try await checker.check(code, sentTo: phone)
        } catch {
            logger.warning("MFA SMS code not checked", metadata: ["factor_id": "\(factorID)", "error": "\(error)"])
        }
        guard approved else {
            try await limits.recordFailedMFACode(for: factorID)
            throw AuthError.codeExpired
        }
        return true
    }
}
