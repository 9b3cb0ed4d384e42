import Foundation
import LatchkeyWire

/// `GET /passkeys`, `PATCH` and `DELETE /passkeys/{id}`: a signed-in user's passkeys; and
/// `/admin/users/{id}/passkeys…`: an administrator's view of anyone's (GoTrue's
/// `PasskeyList`, `PasskeyUpdate`, `PasskeyDelete`, `AdminPasskeyList`, `AdminPasskeyDelete`).
///
/// Another user's passkey answers as an unknown one does: 404 "Passkey not found". Deleting
/// needs `aal2` when the user has a verified second factor; renaming does not (as GoTrue).
struct PasskeyManagement: Sendable {
    let ceremonies: PasskeyCeremonies

    /// The longest name a passkey may have, in characters.
    static let maximumNameLength = 120

    func list(of userID: UUID) async throws -> [PasskeyResponse] {
        try await ceremonies.store.passkeys(userID: userID).map(PasskeyResponse.init)
    }

    func rename(
        _ passkeyID: UUID, with body: PasskeyUpdateBody, by signedIn: BearerAuthentication.Authenticated, ipAddress: String
    )
        async throws -> PasskeyResponse
    {
        guard let name = body.friendly_name, !name.isEmpty else { throw AuthError.passkeyNameRequired }
        guard name.count <= Self.maximumNameLength else { throw AuthError.passkeyNameTooLong }
        let user = signedIn.user
        let now = ceremonies.clock.now()
        let audit = AuditEntry(
            action: .passkeyUpdated, actorID: user.id, actorUsername: user.email, traits: ["passkey_id": .string(passkeyID.lowercasedString)],
            ipAddress: ipAddress, createdAt: now)
        return try await ceremonies.store.changePasskeys(of: user.id) { current in
            guard var passkey = current.first(where: { $0.id == passkeyID }) else { throw AuthError.passkeyNotFound }
            passkey.friendlyName = name
            passkey.updatedAt = now
            return PasskeyPlan(changes: [.update(passkey), .audit(audit)], result: PasskeyResponse(passkey))
        }
    }

    func delete(_ passkeyID: UUID, by signedIn: BearerAuthentication.Authenticated, ipAddress: String) async throws {
        try await ceremonies.requireManagementAssurance(signedIn)
        let user = signedIn.user
        let audit = AuditEntry(
            action: .passkeyDeleted, actorID: user.id, actorUsername: user.email, traits: ["passkey_id": .string(passkeyID.lowercasedString)],
            ipAddress: ipAddress, createdAt: ceremonies.clock.now())
        try await delete(passkeyID, of: user.id, audit: audit)
    }

    /// An administrator lists a user's passkeys (404 `user_not_found` for no such user).
    func adminList(userID: UUID) async throws -> [PasskeyResponse] {
        guard try await ceremonies.store.user(id: userID) != nil else { throw AuthError.userNotFound }
        return try await list(of: userID)
    }

    /// An administrator deletes a user's passkey, audited with the service role as the actor.
    func adminDelete(_ passkeyID: UUID, of userID: UUID, ipAddress: String) async throws {
        guard try await ceremonies.store.user(id: userID) != nil else { throw AuthError.userNotFound }
        let audit = AuditEntry(
            action: .passkeyDeleted, actorID: nil, actorUsername: "service_role",
            traits: ["user_id": .string(userID.lowercasedString), "passkey_id": .string(passkeyID.lowercasedString)], ipAddress: ipAddress,
            createdAt: ceremonies.clock.now())
        try await delete(passkeyID, of: userID, audit: audit)
    }

    private func delete(_ passkeyID: UUID, of userID: UUID, audit: AuditEntry) async throws {
        try await ceremonies.store.changePasskeys(of: userID) { current in
            guard current.contains(where: { $0.id == passkeyID }) else { throw AuthError.passkeyNotFound }
            return PasskeyPlan(changes: [.delete(id: passkeyID), .audit(audit)], result: ())
        }
    }
}
