import Foundation

/// What an identity operation needs read, inside its transaction: see
/// ``AuthStore/changeIdentities(_:plan:)``.
package struct IdentityLookup: Sendable, Equatable {
    /// The identity signing in or being linked: (provider, subject).
    var provider: String?
    var subject: String?
    /// Addresses whose users and identities the plan may link to (verified ones only).
    var emails: [String]
    /// The signed-in user an identity is linked to or unlinked from.
    var userID: UUID?

    init(provider: String? = nil, subject: String? = nil, emails: [String] = [], userID: UUID? = nil) {
        self.provider = provider
        self.subject = subject
        self.emails = emails
        self.userID = userID
    }
}

/// What a store reads for an ``IdentityLookup``.
package struct IdentityState: Sendable, Equatable {
    /// The identity with the lookup's provider and subject, and its user.
    var identity: IdentityRecord?
    var identityUser: UserRecord?
    /// Users whose address is one of the lookup's emails, and the users of
    /// ``identitiesWithEmail``.
    var usersWithEmail: [UserRecord]
    /// Identities whose address is one of the lookup's emails.
    var identitiesWithEmail: [IdentityRecord]
    /// The lookup's user, and every identity of it, oldest first.
    var user: UserRecord?
    var userIdentities: [IdentityRecord]

    init(
        identity: IdentityRecord? = nil, identityUser: UserRecord? = nil, usersWithEmail: [UserRecord] = [],
        identitiesWithEmail: [IdentityRecord] = [], user: UserRecord? = nil, userIdentities: [IdentityRecord] = []
    ) {
        self.identity = identity
        self.identityUser = identityUser
        self.usersWithEmail = usersWithEmail
        self.identitiesWithEmail = identitiesWithEmail
        self.user = user
        self.userIdentities = userIdentities
    }
}

/// One row change of an identity operation.
package enum IdentityChange: Sendable, Equatable {
    case insertUser(UserRecord)
    case updateUser(UserRecord)
    case insertIdentity(IdentityRecord)
    /// Replaces the identity's data, address and times.
    case updateIdentity(IdentityRecord)
    case deleteIdentity(id: UUID)
    /// Deletes every identity of the user but one (an unconfirmed account taken over by a
    /// verified provider sign-in keeps only that identity).
    case deleteIdentities(userID: UUID, except: UUID)
    case audit(AuditEntry)
}

/// What to write for an identity operation, and what to answer.
package typealias IdentityPlan<Result: Sendable> = StorePlan<IdentityChange, Result>
