import Foundation
import LatchkeyWire

/// `POST /factors/{id}/challenge`: opens a challenge of one of the signed-in user's factors, to
/// be verified with a code from the same address before it expires (GoTrue's `ChallengeFactor`).
struct FactorChallenges: Sendable {
    let store: any AuthStore
    let clock: any ServerClock
    let limits: RateLimits
    let rules: FactorRules

    func challenge(_ factorID: UUID, by signedIn: BearerAuthentication.Authenticated, ipAddress: String) async throws -> ChallengeFactorResponse {
        let user = signedIn.user
        try FactorRules.requireNotAnonymous(user)
        try await limits.admitMFARequest(from: ipAddress)
        guard rules.totpVerifyEnabled else { throw AuthError.totpVerifyDisabled }
        let now = clock.now()
        let challenge = ChallengeRecord(factorID: factorID, createdAt: now, ipAddress: ipAddress)
        let outcome = try await store.changeFactors(of: user.id, challengeID: nil, sessionID: nil) { state in
            switch FactorRules.owned(factorID, in: state.factors) {
            case .failure(let error):
                return FactorPlan(changes: [], result: FactorOutcome<FactorRecord>.failure(error))
            case .success(var factor):
                factor.lastChallengedAt = now
                let audit = AuditEntry(
                    action: .challengeCreated, actorID: user.id, actorUsername: user.email,
                    traits: ["factor_id": .string(factor.id.lowercasedString), "factor_status": .string(factor.status.rawValue)],
                    ipAddress: ipAddress, createdAt: now)
                return FactorPlan(changes: [.insertChallenge(challenge), .updateFactor(factor), .audit(audit)], result: .success(factor))
            }
        }
        let factor = try outcome.get()
        return ChallengeFactorResponse(
            id: challenge.id.lowercasedString, type: factor.factorType,
            expires_at: Int(rules.expiry(ofChallengeCreatedAt: now).timeIntervalSince1970))
    }
}
