import Foundation
import LatchkeyWire

/// `DELETE /factors/{id}`: the signed-in user removes one of their factors (GoTrue's
/// `UnenrollFactor`). A verified factor needs an `aal2` session (422 `insufficient_aal`); sessions
/// the factor raised go back to `aal1`.
struct FactorUnenrollment: Sendable {
    let store: any AuthStore
    let clock: any ServerClock
    /// The factor-unenrolled notice.
    let notices: AccountNotices

    func unenroll(_ factorID: UUID, by signedIn: BearerAuthentication.Authenticated, ipAddress: String) async throws -> UnenrollFactorResponse {
        let user = signedIn.user
        let now = clock.now()
        let sessionID = signedIn.session.id
        let outcome = try await store.changeFactors(of: user.id, challengeID: nil, sessionID: sessionID) { state in
            switch FactorRules.owned(factorID, in: state.factors) {
            case .failure(let error):
                return FactorPlan(changes: [], result: FactorOutcome<String>.failure(error))
            case .success(let factor):
                // The session as it is now: a verification since the token was issued counts.
                if factor.isVerified, state.session?.aal != .aal2 {
                    return FactorPlan(changes: [], result: .failure(.aal2RequiredToUnenroll))
                }
                let audit = AuditEntry(
                    action: .factorUnenrolled, actorID: user.id, actorUsername: user.email,
                    traits: [
                        "factor_id": .string(factor.id.lowercasedString), "factor_status": .string(factor.status.rawValue),
                        "session_id": .string(sessionID.lowercasedString),
                    ],
                    ipAddress: ipAddress, createdAt: now)
                return FactorPlan(changes: [.deleteFactor(id: factor.id), .audit(audit)], result: .success(factor.factorType))
            }
        }
        let factorType = try outcome.get()
        notices.send(.factorUnenrolled(factorType: factorType), about: user)
        return UnenrollFactorResponse(id: factorID.lowercasedString)
    }
}
