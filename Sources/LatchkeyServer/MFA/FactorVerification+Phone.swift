import Foundation
import LatchkeyWire

/// Verifying a phone factor: `{"challenge_id": …, "code": …}`, as GoTrue's `verifyPhoneFactor`.
///
/// - The challenge is checked as for TOTP: the factor's, unspent, from the same address, not
///   expired (an expired one is deleted).
/// - The code must be the one sent for this challenge: its hash, bound to the challenge, is
///   compared in constant time, so a code sent for another challenge (or another user's) never
///   matches. A wrong code is 422 `mfa_verification_failed` "Invalid MFA Phone code entered",
///   audited and counted against the factor like a wrong TOTP code.
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
        return try await run(factorID, challengeID: challengeID, by: signedIn, counting: .invalidPhoneFactorCode, "wrong phone code") {
            state, now, refreshToken in
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
            guard messages.matches(code, challenge) else {
                traits["error_code"] = .string(AuthError.invalidPhoneFactorCode.code)
                return FactorPlan(
                    changes: [.audit(Self.audit(user, traits: traits, ipAddress: ipAddress, now: now))], result: .failure(.invalidPhoneFactorCode))
            }
            return Self.success(
                factor: factor, method: "mfa/phone", session: session, challenge: challenge, state: state, user: user, traits: traits,
                ipAddress: ipAddress, now: now, refreshToken: refreshToken)
        }
    }
}
