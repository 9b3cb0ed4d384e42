import Foundation
import HTTPTypes
import LatchkeyWire

/// What a verified provider sign-in writes: GoTrue's automatic account linking
/// (`DetermineAccountLinking`, `createAccountFromExternalIdentity`) and manual linking
/// (`linkIdentityToUser`), as pure functions of the ``IdentityState`` a store read.
///
/// - The identity is known: its user signs in; the identity's data is refreshed.
/// - Otherwise, an account whose address the provider **verified** gets the identity linked
///   (through its own address or an identity with that address). Unlike GoTrue, an address the
///   provider did not verify never links, even with `GOTRUE_MAILER_AUTOCONFIRM`: whoever
///   controls the provider account could otherwise take over the account with that address.
/// - Otherwise a new account (unless sign-ups are off). It gets the provider's address only
///   when the provider verified it and nobody has it: an unverified address stays the
///   identity's (GoTrue puts it on the account, where a later sign-up's confirmation would
///   confirm it for whoever signed in through the provider). An identity whose address is
///   unverified never names an account to link to either.
/// - An unconfirmed account that a verified sign-in reaches loses its password, its other
///   identities and its metadata (GoTrue's `RemoveUnconfirmedIdentities`): whoever signed up
///   with someone else's address before they did cannot keep a way in.
enum ProviderSignInPlan {
    /// What the plan needs beyond the state.
    struct Context: Sendable {
        var provider: String
        var data: ProviderUserData
        var emailOptional: Bool
        var signupDisabled: Bool
        var autoconfirm: Bool
        var ipAddress: String
        var now: Date

        init(
            provider: String, data: ProviderUserData, emailOptional: Bool, signupDisabled: Bool, autoconfirm: Bool, ipAddress: String, now: Date
        ) {
            self.provider = provider
            self.data = data
            self.emailOptional = emailOptional
            self.signupDisabled = signupDisabled
            self.autoconfirm = autoconfirm
            self.ipAddress = ipAddress
            self.now = now
        }
    }

    /// How a sign-in ends.
    enum Outcome: Sendable, Equatable {
        /// The user may be given a session (`created`: the account is new).
        case signedIn(UserRecord, created: Bool)
        /// The account was stored but its address must be verified first (GoTrue's 422
        /// `provider_email_needs_verification`, answered after the commit).
        case needsVerification(AuthError)
    }

    /// The store lookup for a sign-in with `data` at `provider`.
    static func lookup(provider: String, data: ProviderUserData) -> IdentityLookup {
        IdentityLookup(provider: provider, subject: data.subject, emails: data.email.map { [$0] } ?? [])
    }

    /// Signs in with an identity (GoTrue's `createAccountFromExternalIdentity`).
    static func signIn(_ state: IdentityState, _ context: Context) throws(AuthError) -> IdentityPlan<Outcome> {
        let now = context.now
        let data = context.data
        var changes: [IdentityChange] = []
        var user: UserRecord
        var identity: IdentityRecord
        var created = false
        var candidateEmail = data.email ?? ""
        let verified = data.emailVerified && !candidateEmail.isEmpty

        if let existing = state.identity {
            guard let owner = state.identityUser else { throw AuthError.unexpected }
            user = owner
            identity = existing
            identity.identityData = data.identityData
            identity.email = data.email
            identity.lastSignInAt = now
            identity.updatedAt = now
            changes.append(.updateIdentity(identity))
            user.userMetadata.merge(data.identityData) { _, new in new }
            // An address the provider has verified since becomes the account's, if nobody has it.
            if verified, user.email.isEmpty, !state.usersWithEmail.contains(where: { $0.email == candidateEmail && $0.id != user.id }) {
                user.email = candidateEmail
            }
            candidateEmail = user.email
        } else {
            let owner: UserRecord? = verified ? try linkTarget(state, email: candidateEmail) : nil
            identity = IdentityRecord(
                subject: data.subject, userID: owner?.id ?? UUID(), provider: context.provider, identityData: data.identityData, email: data.email,
                lastSignInAt: now, createdAt: now, updatedAt: now)
            if var owner {
                owner.userMetadata.merge(data.identityData) { _, new in new }
                user = owner
                changes.append(.insertIdentity(identity))
                changes.append(linkAudit(.identityLinked, user: owner, identity: identity, context))
            } else {
                guard !context.signupDisabled else { throw AuthError.signupDisabled }
                // An address the provider did not verify belongs to the identity only, and an
                // address someone else's account has stays theirs: the new account has none.
                if !verified || state.usersWithEmail.contains(where: { $0.email == candidateEmail }) { candidateEmail = "" }
                user = UserRecord(
                    id: identity.userID, email: candidateEmail, passwordHash: nil,
                    appMetadata: ["provider": .string(context.provider), "providers": .array([.string(context.provider)])],
                    userMetadata: data.identityData, createdAt: now, updatedAt: now)
                created = true
                changes.append(.insertIdentity(identity))
            }
        }
        guard !user.isBanned(at: now) else { throw AuthError.userBannedForbidden }
        user.appMetadata["providers"] = .array(providers(of: user, adding: context.provider).map(JSONValue.string))
        if user.appMetadata["provider"] == nil { user.appMetadata["provider"] = .string(context.provider) }

        // A new account needs an address confirmed when the provider gave one, even one it kept.
        let hasEmail = !(context.emailOptional && (created ? data.email ?? "" : candidateEmail).isEmpty)
        var outcome = Outcome.signedIn(user, created: created)
        if hasEmail && user.emailConfirmedAt == nil {
            if !created {
                // Pre-account takeover: only what this sign-in proved stays.
                user.passwordHash = nil
                user.userMetadata = data.identityData
                user.appMetadata["providers"] = .array([.string(context.provider)])
                user.appMetadata["provider"] = .string(context.provider)
                changes.append(.deleteIdentities(userID: user.id, except: identity.id))
            }
            // As GoTrue: autoconfirm confirms the account even when the address stayed someone else's.
            if verified || context.autoconfirm {
                user.emailConfirmedAt = now
                changes.append(audit(.userSignedUp, user: user, context))
            } else {
                outcome = .needsVerification(
                    AuthError(
                        .unprocessableContent, "provider_email_needs_verification",
                        "Unverified email with \(context.provider). Verify the email with \(context.provider) in order to sign in"))
            }
        }
        user.updatedAt = now
        // The user's row first: a new identity refers to it.
        changes.insert(created ? .insertUser(user) : .updateUser(user), at: 0)
        if case .signedIn = outcome { outcome = .signedIn(user, created: created) }
        return IdentityPlan(changes: changes, result: outcome)
    }

    /// Links an identity to the signed-in user `state.user` (GoTrue's `linkIdentityToUser`):
    /// refused with 422 `identity_already_exists` when the identity is anyone's already. An
    /// anonymous user becomes a permanent one, with the provider's verified address.
    static func link(_ state: IdentityState, _ context: Context) throws(AuthError) -> IdentityPlan<UserRecord> {
        guard var user = state.user else { throw AuthError.userGone }
        if let existing = state.identity {
            throw AuthError(
                .unprocessableContent, "identity_already_exists",
                existing.userID == user.id ? "Identity is already linked" : "Identity is already linked to another user")
        }
        let now = context.now
        let data = context.data
        let identity = IdentityRecord(
            subject: data.subject, userID: user.id, provider: context.provider, identityData: data.identityData, email: data.email,
            lastSignInAt: now, createdAt: now, updatedAt: now)
        var changes: [IdentityChange] = [.insertIdentity(identity), linkAudit(.identityLinked, user: user, identity: identity, context)]
        if user.email.isEmpty, data.emailVerified, let email = data.email,
            !state.usersWithEmail.contains(where: { $0.email == email && $0.id != user.id })
        {
            user.email = email
            user.emailConfirmedAt = now
        }
        user.isAnonymous = false
        user.appMetadata["providers"] = .array(providers(of: user, adding: context.provider).map(JSONValue.string))
        if user.appMetadata["provider"] == nil { user.appMetadata["provider"] = .string(context.provider) }
        user.updatedAt = now
        changes.insert(.updateUser(user), at: 0)
        return IdentityPlan(changes: changes, result: user)
    }

    /// Unlinks the identity `identityID` from `state.user` (GoTrue's `DeleteIdentity`): 422
    /// `single_identity_not_deletable` for the last way in, `identity_not_found` for an
    /// identity that is not the user's. The `email` identity of an account with a password
    /// is its address, which cannot be unlinked here (change the address instead).
    static func unlink(_ state: IdentityState, identityID: UUID, ipAddress: String, now: Date) throws(AuthError) -> IdentityPlan<UserRecord> {
        guard var user = state.user else { throw AuthError.userGone }
        let count = state.userIdentities.count + (user.hasEmailIdentity && !user.email.isEmpty ? 1 : 0)
        guard count > 1 else {
            throw AuthError(.unprocessableContent, "single_identity_not_deletable", "User must have at least 1 identity after unlinking")
        }
        guard let identity = state.userIdentities.first(where: { $0.id == identityID }) else {
            throw AuthError(.unprocessableContent, "identity_not_found", "Identity doesn't exist")
        }
        let remaining = state.userIdentities.filter { $0.id != identityID }
        var providers = user.hasEmailIdentity ? ["email"] : []
        for other in remaining where !providers.contains(other.provider) { providers.append(other.provider) }
        user.appMetadata["providers"] = .array(providers.map(JSONValue.string))
        if user.appMetadata["provider"]?.stringValue == identity.provider, let first = providers.first {
            user.appMetadata["provider"] = .string(first)
        }
        user.updatedAt = now
        let audit = AuditEntry(
            action: .identityUnlinked, actorID: user.id, actorUsername: user.email,
            traits: [
                "identity_id": .string(identity.id.lowercasedString), "provider": .string(identity.provider),
                "provider_id": .string(identity.subject),
            ], ipAddress: ipAddress, createdAt: now)
        return IdentityPlan(changes: [.deleteIdentity(id: identityID), .updateUser(user), .audit(audit)], result: user)
    }

    /// The account a verified `email` links to: the one user with that address or with an
    /// identity whose provider verified that address. Several different users is GoTrue's 500
    /// (it cannot choose). An identity with the address unverified names no account (GoTrue
    /// counts it): whoever controls that provider account would get the owner's sign-ins.
    static func linkTarget(_ state: IdentityState, email: String) throws(AuthError) -> UserRecord? {
        let owners = Set(state.identitiesWithEmail.filter { $0.email == email && $0.isEmailVerified }.map(\.userID))
        if owners.count > 1 { throw AuthError(.internalServerError, "unexpected_failure", "Multiple accounts with the same email address detected") }
        if let owner = owners.first { return state.usersWithEmail.first { $0.id == owner } }
        let users = state.usersWithEmail.filter { $0.email == email && !$0.isAnonymous }
        if users.count > 1 { throw AuthError(.internalServerError, "unexpected_failure", "Multiple accounts with the same email address detected") }
        return users.first
    }

    static func providers(of user: UserRecord, adding provider: String) -> [String] {
        var providers = user.providers
        if !providers.contains(provider) { providers.append(provider) }
        return providers
    }

    static func audit(_ action: AuditEntry.Action, user: UserRecord, _ context: Context) -> IdentityChange {
        .audit(
            AuditEntry(
                action: action, actorID: user.id, actorUsername: user.email, traits: ["provider": .string(context.provider)],
                ipAddress: context.ipAddress, createdAt: context.now))
    }

    static func linkAudit(_ action: AuditEntry.Action, user: UserRecord, identity: IdentityRecord, _ context: Context) -> IdentityChange {
        .audit(
            AuditEntry(
                action: action, actorID: user.id, actorUsername: user.email,
                traits: [
                    "identity_id": .string(identity.id.lowercasedString), "provider": .string(identity.provider),
                    "provider_id": .string(identity.subject),
                ], ipAddress: context.ipAddress, createdAt: context.now))
    }
}
