import Foundation
import LatchkeyWire

/// What importing one account did.
package enum ImportOutcome: Sendable, Equatable {
    case created
    case updated
    /// The stored user already said everything the export says.
    case unchanged
}

/// The pure rules of importing one account over what is stored: a re-run updates the user it
/// made before (found by id) and never makes a second one.
///
/// On an update the export's fields win, except where the user has moved on in Latchkey: a
/// password hash is replaced only while it is still an imported one (never a bcrypt hash the
/// user's sign-in or a password change has made), an address confirmed here stays confirmed, a
/// ban set here stays, `last_sign_in_at` keeps the later time, and metadata keys the export does
/// not name are kept. A row whose address belongs to another user is refused.
package enum ImportPlan {
    package static func plan(_ account: ImportedAccount, state: IdentityState, now: Date) throws -> IdentityPlan<ImportOutcome> {
        let new = account.user
        if state.usersWithEmail.contains(where: { $0.email == new.email && $0.id != new.id }) {
            throw ImportRefusal("the email address belongs to another user")
        }
        if let identity = state.identity, identity.userID != new.id {
            throw ImportRefusal("its \(identity.provider) identity belongs to another user")
        }
        guard let existing = state.user else {
            return IdentityPlan(changes: [.insertUser(new)] + account.identities.map(IdentityChange.insertIdentity), result: .created)
        }
        var merged = existing
        merged.email = new.email
        merged.emailConfirmedAt = existing.emailConfirmedAt ?? new.emailConfirmedAt
        if existing.passwordHash == nil || existing.passwordHash?.hasPrefix(FirebaseScryptHash.prefix) == true, let hash = new.passwordHash {
            merged.passwordHash = hash
        }
        merged.lastSignInAt = [existing.lastSignInAt, new.lastSignInAt].compactMap { $0 }.max()
        if new.bannedUntil != nil {
            if !existing.isBanned(at: now) { merged.bannedUntil = new.bannedUntil }
        } else if existing.bannedUntil == FirebaseAccountMapping.disabledUntil {
            merged.bannedUntil = nil
        }
        merged.createdAt = new.createdAt
        for (key, value) in new.userMetadata { merged.userMetadata[key] = value }
        for (key, value) in new.appMetadata where key != "providers" { merged.appMetadata[key] = value }
        let providers = existing.providers + new.providers.filter { !existing.providers.contains($0) }
        merged.appMetadata["providers"] = .array(providers.map(JSONValue.string))

        var changes: [IdentityChange] = []
        for identity in account.identities {
            if var stored = state.userIdentities.first(where: { $0.provider == identity.provider && $0.subject == identity.subject }) {
                guard stored.identityData != identity.identityData || stored.email != identity.email else { continue }
                stored.identityData = identity.identityData
                stored.email = identity.email
                stored.updatedAt = now
                changes.append(.updateIdentity(stored))
            } else {
                changes.append(.insertIdentity(identity))
            }
        }
        guard merged != existing || !changes.isEmpty else { return IdentityPlan(changes: [], result: .unchanged) }
        merged.updatedAt = now
        return IdentityPlan(changes: [.updateUser(merged)] + changes, result: .updated)
    }
}
