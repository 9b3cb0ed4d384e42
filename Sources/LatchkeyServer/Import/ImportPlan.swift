import Foundation
import LatchkeyWire

/// What importing one account did.
enum ImportOutcome: Sendable, Equatable {
    case created
    case updated
    /// The stored user already said everything the export says.
    case unchanged
}

/// The pure rules of importing one account over what is stored: a re-run updates the user it
/// made before (found by id) and never makes a second one.
///
/// On an update the export's fields win, except where the user has moved on in Latchkey: a
/// password hash is replaced only while there is none or it is still one the server re-hashes
/// at the next sign-in (never a bcrypt hash, which an import, the user's sign-in or a password
/// change made), an anonymous account that got an address here keeps it, an address confirmed
/// here stays confirmed, a ban set here stays, `last_sign_in_at` keeps the later time, and
/// metadata keys the export does not name are kept; an account with no address in the export
/// (anonymous or phone-only) keeps an address it got here, and a number it got here stays
/// (with its confirmation). A row whose address belongs to another user is refused.
enum ImportPlan {
    static func plan(_ account: ImportedAccount, state: IdentityState, now: Date) throws -> IdentityPlan<ImportOutcome> {
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
        if !new.email.isEmpty || existing.email.isEmpty {
            merged.email = new.email
            merged.isAnonymous = new.isAnonymous
        }
        merged.emailConfirmedAt = existing.emailConfirmedAt ?? new.emailConfirmedAt
        if existing.phone.isEmpty {
            merged.phone = new.phone
            merged.phoneConfirmedAt = new.phone.isEmpty ? nil : new.phoneConfirmedAt
        } else if existing.phone == new.phone {
            merged.phoneConfirmedAt = stored(existing.phoneConfirmedAt, or: existing.phoneConfirmedAt ?? new.phoneConfirmedAt)
        }
        if existing.passwordHash.map(isReplaceable) ?? true, let hash = new.passwordHash {
            merged.passwordHash = hash
        }
        merged.lastSignInAt = stored(existing.lastSignInAt, or: [existing.lastSignInAt, new.lastSignInAt].compactMap { $0 }.max())
        if new.bannedUntil != nil {
            if !existing.isBanned(at: now) { merged.bannedUntil = stored(existing.bannedUntil, or: new.bannedUntil) }
        } else if existing.bannedUntil == FirebaseAccountMapping.disabledUntil {
            merged.bannedUntil = nil
        }
        merged.createdAt = stored(existing.createdAt, or: new.createdAt) ?? new.createdAt
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

    /// The rule for an imported factor over the user's stored ones: added once, by its id; a
    /// factor already there is left as it is (its secret or credential cannot change, and its
    /// name, last used code and counter are the user's). A WebAuthn factor whose credential the
    /// user already has here, as another factor or as one of `passkeys` (credential ids), is
    /// refused, as the server refuses registering it; so is a phone factor whose number is
    /// another verified phone factor of the user here, as the server refuses enrolling it. The
    /// result says whether it was added.
    static func factor(_ factor: FactorRecord, state: FactorState, passkeys: [[UInt8]] = []) -> FactorPlan<Result<Bool, ImportRefusal>> {
        guard !state.factors.contains(where: { $0.id == factor.id }) else { return FactorPlan(changes: [], result: .success(false)) }
        if let credential = factor.webAuthnCredential?.credentialID {
            if state.factors.contains(where: { $0.webAuthnCredential?.credentialID == credential }) {
                return FactorPlan(changes: [], result: .failure(ImportRefusal("its credential is another WebAuthn factor of the user here")))
            }
            if passkeys.contains(credential) {
                return FactorPlan(changes: [], result: .failure(ImportRefusal("its credential is one of the user's passkeys here")))
            }
        }
        if let phone = factor.phone, state.factors.contains(where: { $0.isVerified && $0.phone == phone }) {
            return FactorPlan(changes: [], result: .failure(ImportRefusal("its number is another verified phone factor of the user here")))
        }
        return FactorPlan(changes: [.insertFactor(factor)], result: .success(true))
    }

    /// The rule for an imported passkey over the user's stored ones (`current`): added once, by
    /// its id; a passkey already there keeps its name, times and backup state (the user's, since
    /// it was imported) and takes the source's signature counter when that is higher (the user
    /// kept signing in at the source: a lower counter would let a cloned authenticator's
    /// assertion through). The result says whether it was added. A credential the user already
    /// has here under another id is refused; one another account has is the store's
    /// ``StoreError/duplicateCredential``.
    static func passkey(_ passkey: PasskeyRecord, current: [PasskeyRecord]) throws(ImportRefusal) -> PasskeyPlan<Bool> {
        if var stored = current.first(where: { $0.id == passkey.id }) {
            guard stored.credentialID == passkey.credentialID else { throw ImportRefusal("another credential is stored here under its id") }
            guard passkey.signCount > stored.signCount else { return PasskeyPlan(changes: [], result: false) }
            stored.signCount = passkey.signCount
            return PasskeyPlan(changes: [.update(stored)], result: false)
        }
        guard !current.contains(where: { $0.credentialID == passkey.credentialID }) else {
            throw ImportRefusal("its credential is registered here already as another passkey of the user")
        }
        return PasskeyPlan(changes: [.insert(passkey)], result: true)
    }

    /// `time`, unless `stored` is the same time to the millisecond: then `stored`, as the store
    /// gave it back. Exports carry milliseconds, and PostgreSQL keeps microseconds of the
    /// binary value it is given, so a time read back can differ from the one written below the
    /// millisecond; a re-run must not take that for a change.
    static func stored(_ stored: Date?, or time: Date?) -> Date? {
        guard let stored, let time else { return time }
        let milliseconds = { (date: Date) in (date.timeIntervalSince1970 * 1000).rounded() }
        return milliseconds(stored) == milliseconds(time) ? stored : time
    }

    /// Whether a stored hash may be replaced by a re-run: one the server re-hashes at the next
    /// sign-in (Firebase's scrypt), not bcrypt.
    static func isReplaceable(_ storedHash: String) -> Bool {
        guard case .bcrypt? = try? StoredPasswordHash(parsing: storedHash) else { return true }
        return false
    }
}
