import Foundation
import LatchkeyWire

/// `/admin/users/{id}/factors…`: an administrator lists, renames and deletes a user's factors
/// (GoTrue's `adminUserGetFactors`, `adminUserUpdateFactor`, `adminUserDeleteFactor`). Deleting
/// a factor lowers the sessions it raised back to `aal1`. Every change is audited with the
/// administrator as the actor.
struct AdminFactors: Sendable {
    let store: any AuthStore
    let clock: any ServerClock

    /// Every factor of the user, verified or not (404 `user_not_found` for no such user).
    func list(userID: UUID) async throws -> [FactorResponse] {
        _ = try await existingUser(userID)
        return try await store.factors(userID: userID).map(FactorResponse.init)
    }

    /// Renames a factor when `friendly_name` is given and not empty; another factor of the user
    /// with that name is 422 `mfa_factor_name_conflict`.
    func update(userID: UUID, factorID: UUID, with body: AdminUpdateFactorBody, ipAddress: String) async throws -> FactorResponse {
        let user = try await existingUser(userID)
        let now = clock.now()
        let name = body.friendly_name ?? ""
        guard name.count <= 255 else { throw AuthError.validation("friendly_name is longer than 255 characters") }
        let outcome = try await store.changeFactors(of: user.id, challengeID: nil, sessionID: nil) { state in
            guard case .success(var factor) = FactorRules.owned(factorID, in: state.factors) else {
                return FactorPlan(changes: [], result: FactorOutcome<FactorRecord>.failure(.factorNotFound))
            }
            if !name.isEmpty {
                if state.factors.contains(where: { $0.id != factor.id && $0.friendlyName == name }) {
                    return FactorPlan(changes: [], result: .failure(.factorNameConflict(name)))
                }
                factor.friendlyName = name
                factor.updatedAt = now
            }
            let audit = Self.audit(.factorUpdated, user: user, factor: factor, ipAddress: ipAddress, now: now)
            return FactorPlan(changes: [.updateFactor(factor), .audit(audit)], result: .success(factor))
        }
        return FactorResponse(try outcome.get())
    }

    /// Deletes a factor of the user; answers it as it was.
    func delete(userID: UUID, factorID: UUID, ipAddress: String) async throws -> FactorResponse {
        let user = try await existingUser(userID)
        let now = clock.now()
        let outcome = try await store.changeFactors(of: user.id, challengeID: nil, sessionID: nil) { state in
            guard case .success(let factor) = FactorRules.owned(factorID, in: state.factors) else {
                return FactorPlan(changes: [], result: FactorOutcome<FactorRecord>.failure(.factorNotFound))
            }
            let audit = Self.audit(.factorDeleted, user: user, factor: factor, ipAddress: ipAddress, now: now)
            return FactorPlan(changes: [.deleteFactor(id: factor.id), .audit(audit)], result: .success(factor))
        }
        return FactorResponse(try outcome.get())
    }

    private func existingUser(_ id: UUID) async throws -> UserRecord {
        guard let user = try await store.user(id: id) else { throw AuthError.userNotFound }
        return user
    }

    private static func audit(_ action: AuditEntry.Action, user: UserRecord, factor: FactorRecord, ipAddress: String, now: Date) -> AuditEntry {
        AuditEntry(
            action: action, actorID: nil, actorUsername: "service_role",
            traits: [
                "user_id": .string(user.id.lowercasedString), "factor_id": .string(factor.id.lowercasedString),
                "factor_type": .string(factor.factorType),
            ],
            ipAddress: ipAddress, createdAt: now)
    }
}
