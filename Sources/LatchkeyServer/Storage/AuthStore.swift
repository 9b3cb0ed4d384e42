import Foundation

/// Where users, sessions, refresh tokens, email-link tokens, PKCE flows and the audit log live.
///
/// Each method is one atomic unit of work: the store runs it in a single transaction, so a
/// failure never leaves half of it written, and concurrent calls never interleave inside one.
/// SQLite (``SQLiteAuthStore``) is the default; every implementation must pass the same
/// conformance tests.
package protocol AuthStore: Sendable {
    /// Adds a user. Throws ``StoreError/duplicateEmail`` when the email is taken,
    /// ``StoreError/duplicateUserID`` when the id is.
    func insertUser(_ user: UserRecord, audit: AuditEntry?) async throws
    /// Adds a user together with its first session or its confirmation link (``NewAccountStart``),
    /// in one transaction: a failure leaves no account behind. Throws ``StoreError/duplicateEmail``
    /// when the email is taken.
    func insertUser(_ user: UserRecord, audit: AuditEntry?, start: NewAccountStart) async throws
    func user(id: UUID) async throws -> UserRecord?
    /// Looks a user up by (already normalised) email.
    func user(email: String) async throws -> UserRecord?
    /// Looks a user up by (already normalised) phone number.
    func user(phone: String) async throws -> UserRecord?
    /// Replaces a user's fields and, in the same transaction, ends the sessions `endingSessions`
    /// names (their refresh tokens then answer `refresh_token_not_found`, as GoTrue). Throws
    /// ``StoreError/duplicateEmail`` when the new email is taken (``StoreError/duplicatePhone``
    /// for the phone number); a failure writes neither.
    func updateUser(_ user: UserRecord, audit: AuditEntry?, endingSessions: SessionsToEnd?) async throws
    /// Deletes a user with all their sessions, tokens and links. Returns whether it existed.
    func deleteUser(id: UUID, audit: AuditEntry?) async throws -> Bool
    /// One page of the users `listing` selects, in its order (ties broken by id), and how
    /// many it selects in all.
    func listUsers(offset: Int, limit: Int, listing: UserListing) async throws -> (users: [UserRecord], total: Int)

    /// Starts a session with its first refresh token, optionally saving the user in the same
    /// transaction (for `last_sign_in_at`).
    func createSession(_ session: SessionRecord, refreshTokenHash: String, updatingUser: UserRecord?, audit: AuditEntry?) async throws
    /// The session and its user, for checking a bearer token.
    func sessionWithUser(id: UUID) async throws -> (session: SessionRecord, user: UserRecord)?
    /// Ends sessions of `userID`: all of them, all but `except`, or only `only`.
    /// Their refresh tokens then answer `refresh_token_not_found`, as GoTrue. Returns how many ended.
    @discardableResult
    func endSessions(userID: UUID, except: UUID?, only: UUID?, audit: AuditEntry?) async throws -> Int
    /// The session a refresh token was issued to, spent or not, by the token's hash; `nil` for a
    /// token never issued or whose user was deleted. One indexed read, outside any transaction.
    func sessionID(ofRefreshTokenHash hash: String) async throws -> UUID?
    /// Spends a refresh token in one transaction: reads its ``RefreshTokenState`` under locks that
    /// serialise every rotation of the token's session (whichever instance runs it), counts the
    /// refresh against its session's limit when `admission` is given and the token is known
    /// (throwing ``AuthError/rateLimited(retryAfter:)`` past it, with nothing written), asks
    /// `plan` what to write, applies the plan's changes and returns its result.
    ///
    /// The store knows no refresh rules: `plan` makes every decision. It must be a pure function
    /// of the state, because a store may run it again when it retries the transaction.
    func rotateRefreshToken<Result: Sendable>(
        hash: String, admission: RefreshAdmission?, plan: @escaping @Sendable (RefreshTokenState) -> RefreshTokenPlan<Result>
    ) async throws -> Result

    /// Stores an email-link token, replacing the user's previous one of the same kind, and
    /// optionally saves the user (for `confirmation_sent_at` and the like).
    func saveOneTimeToken(_ token: OneTimeToken, updatingUser: UserRecord?, audit: AuditEntry?) async throws
    /// Deletes and returns the token whose link or code has this hash and whose kind is one of
    /// `kinds`, with its user. Link and code are one token: using either spends both.
    func consumeOneTimeToken(_ hash: OneTimeToken.Hash, kinds: [OneTimeToken.Kind]) async throws -> (token: OneTimeToken, user: UserRecord)?
    /// Whether `userID` has a token of `kind` not yet spent (expired or not).
    func hasOneTimeToken(userID: UUID, kind: OneTimeToken.Kind) async throws -> Bool

    /// Stores a PKCE flow waiting for its email link.
    func saveFlowState(_ flow: FlowState) async throws
    /// Gives the newest flow of `userID` for `authenticationMethod` an authorization code
    /// (stores its hash and `issuedAt`) and returns it; `nil` when there is no such flow.
    func issueAuthCode(userID: UUID, authenticationMethod: String, authCodeHash: String, issuedAt: Date) async throws -> FlowState?
    /// Deletes and returns the flow whose authorization code has this hash: a code is spent by
    /// its first use, right or wrong.
    func consumeFlowState(authCodeHash: String) async throws -> FlowState?

    /// Every factor of the user, oldest first.
    func factors(userID: UUID) async throws -> [FactorRecord]
    /// Changes a user's factors in one transaction: reads their ``FactorState`` (with the
    /// challenge `challengeID` and the session `sessionID`, when given) under locks that serialise
    /// every factor change of the user (whichever instance runs it), asks `plan` what to write,
    /// applies the plan's changes in order and returns its result.
    ///
    /// The store knows no MFA rules: `plan` makes every decision. It must be a pure function of
    /// the state, because a store may run it again when it retries the transaction.
    func changeFactors<Result: Sendable>(
        of userID: UUID, challengeID: UUID?, sessionID: UUID?, plan: @escaping @Sendable (FactorState) -> FactorPlan<Result>
    ) async throws -> Result

    /// Every identity of the user at an external provider, oldest first.
    func identities(userID: UUID) async throws -> [IdentityRecord]
    /// Signs in, links or unlinks an identity in one transaction: reads the ``IdentityState``
    /// of `lookup`, asks `plan` what to write, applies its changes in order and returns its
    /// result. A plan that throws writes nothing. As for factors, `plan` makes every decision
    /// and must be a pure function of the state (a store may run it again on a retry).
    func changeIdentities<Result: Sendable>(
        _ lookup: IdentityLookup, plan: @escaping @Sendable (IdentityState) throws -> IdentityPlan<Result>
    ) async throws -> Result

    /// Every passkey of the user, oldest first.
    func passkeys(userID: UUID) async throws -> [PasskeyRecord]
    /// The passkey with this credential id, whoever owns it.
    func passkey(credentialID: [UInt8]) async throws -> PasskeyRecord?
    /// Changes a user's passkeys in one transaction: reads them under a lock that serialises
    /// every passkey change of the user (whichever instance runs it), asks `plan` what to write,
    /// applies its changes in order and returns its result. A plan that throws writes nothing;
    /// like the others, it must be a pure function of what it is given.
    func changePasskeys<Result: Sendable>(
        of userID: UUID, plan: @escaping @Sendable ([PasskeyRecord]) throws -> PasskeyPlan<Result>
    ) async throws -> Result
    /// Stores a WebAuthn ceremony's challenge, and deletes those that expired before
    /// `deletingExpiredBefore` (abandoned ones).
    func saveWebAuthnChallenge(_ challenge: WebAuthnChallengeRecord, deletingExpiredBefore: Date) async throws
    /// Deletes and returns the challenge `id` when it is of `kind` and was issued to `userID`
    /// (`nil`: to nobody, a sign-in's): a challenge is spent by its first use, right or wrong.
    /// Another user's, another kind's or an unknown id: `nil`, and nothing is deleted.
    func consumeWebAuthnChallenge(id: UUID, kind: WebAuthnChallengeRecord.Kind, userID: UUID?) async throws -> WebAuthnChallengeRecord?

    /// Stores a browser sign-in at a provider, and deletes those started before
    /// `deletingStartedBefore` (abandoned ones).
    func saveProviderFlow(_ flow: ProviderFlow, deletingStartedBefore: Date) async throws
    /// Deletes and returns the provider flow `id`: a `state` is spent by its first callback.
    func consumeProviderFlow(id: UUID) async throws -> ProviderFlow?

    /// The custom providers, by identifier.
    func customProviders() async throws -> [CustomProviderRecord]
    func customProvider(identifier: String) async throws -> CustomProviderRecord?
    /// Adds `provider`; false when one with its identifier exists already.
    func insertCustomProvider(_ provider: CustomProviderRecord) async throws -> Bool
    /// Replaces the provider with `provider`'s identifier; false when there is none.
    func updateCustomProvider(_ provider: CustomProviderRecord) async throws -> Bool
    /// Deletes the provider `identifier`; false when there was none.
    func deleteCustomProvider(identifier: String) async throws -> Bool

    /// The OAuth server's clients that are not deleted, newest first.
    func oauthClients() async throws -> [OAuthClientRecord]
    /// The client with `id`, unless it is deleted.
    func oauthClient(id: UUID) async throws -> OAuthClientRecord?
    func insertOAuthClient(_ client: OAuthClientRecord) async throws
    /// Replaces the stored client with the same id (a deletion sets ``OAuthClientRecord/deletedAt``);
    /// `false` when there is none.
    func updateOAuthClient(_ client: OAuthClientRecord) async throws -> Bool
    func insertOAuthAuthorization(_ authorization: OAuthAuthorizationRecord) async throws
    /// The authorization with `id` (its `authorization_id`), whatever its status.
    func oauthAuthorization(id: String) async throws -> OAuthAuthorizationRecord?
    /// The authorization whose code has this hash, whatever its status.
    func oauthAuthorization(codeHash: String) async throws -> OAuthAuthorizationRecord?
    /// Replaces the stored authorization with `updated` if its status and user are still those
    /// of `previous`: `false` when another request changed it first (two users reading it, two
    /// consents, two redemptions of a code).
    func updateOAuthAuthorization(_ updated: OAuthAuthorizationRecord, from previous: OAuthAuthorizationRecord) async throws -> Bool
    /// The user's consent to the client, revoked or not.
    func oauthConsent(userID: UUID, clientID: UUID) async throws -> OAuthConsentRecord?
    /// The user's consents that are not revoked, most recently granted first.
    func oauthConsents(userID: UUID) async throws -> [OAuthConsentRecord]
    /// Stores the consent, replacing the user's consent to the same client.
    func saveOAuthConsent(_ consent: OAuthConsentRecord) async throws
    /// Revokes the user's standing consent to the client and ends the user's sessions granted
    /// to it, in one transaction; `false` (and nothing changed) when no consent stands.
    func revokeOAuthConsent(userID: UUID, clientID: UUID, at date: Date, audit: AuditEntry?) async throws -> Bool

    /// Keeps `token`, replacing the one kept for the same identity (provider and subject).
    func keepProviderRefreshToken(_ token: ProviderRefreshTokenRecord) async throws
    /// The provider refresh tokens kept for the user, oldest first.
    func providerRefreshTokens(userID: UUID) async throws -> [ProviderRefreshTokenRecord]
    func appendAudit(_ entry: AuditEntry) async throws
    /// One page of the audit log, newest first.
    func auditEntries(offset: Int, limit: Int) async throws -> [AuditEntry]

    /// Deletes rows that can no longer matter (``StaleRowCutoffs``): at most `limit` of each
    /// kind, each kind in its own short transaction that skips rows other transactions hold, so
    /// it never blocks requests for long and any number of instances may run it at once.
    /// Sessions go first, then refresh tokens whose session is gone.
    func deleteStaleRows(_ cutoffs: StaleRowCutoffs, limit: Int) async throws -> StaleRowCounts

    /// Releases connections.
    func close() async throws

    /// How much of the store's connection pool is in use (`GET /metrics`); `nil` when the store
    /// does not count it.
    var poolUsage: DatabasePoolUsage? { get }
}

extension AuthStore {
    /// ``rotateRefreshToken(hash:admission:plan:)`` counting nothing.
    package func rotateRefreshToken<Result: Sendable>(
        hash: String, plan: @escaping @Sendable (RefreshTokenState) -> RefreshTokenPlan<Result>
    ) async throws -> Result {
        try await rotateRefreshToken(hash: hash, admission: nil, plan: plan)
    }

    /// The identities of `user` at external providers, read only when it has any (an account
    /// that signs in with its address costs no query).
    package func linkedIdentities(of user: UserRecord) async throws -> [IdentityRecord] {
        user.hasLinkedIdentities ? try await identities(userID: user.id) : []
    }

    package var poolUsage: DatabasePoolUsage? { nil }

    /// Replaces a user's fields, ending no session.
    package func updateUser(_ user: UserRecord, audit: AuditEntry?) async throws {
        try await updateUser(user, audit: audit, endingSessions: nil)
    }
}

/// Failures a store reports that callers act on.
package enum StoreError: Error, Sendable, Equatable {
    /// Another user already has this email.
    case duplicateEmail
    /// Another user already has this phone number.
    case duplicatePhone
    /// Another user already has this id.
    case duplicateUserID
    /// A passkey with this credential id is registered already.
    case duplicateCredential
    /// The database cannot be reached or used right now.
    case unavailable(String)
    /// A stored row cannot be read back: a column holds a value the store never writes. The text
    /// names the table and the column.
    case unreadableRow(String)
}

extension AuthStore {
    /// One page of all users, oldest first, and the total count.
    package func listUsers(offset: Int, limit: Int) async throws -> (users: [UserRecord], total: Int) {
        try await listUsers(offset: offset, limit: limit, listing: UserListing(newestFirst: false))
    }
}

extension AuthStore {
    /// Deletes and returns the token whose link has this hash (``OneTimeToken/tokenHash``) and
    /// whose kind is one of `kinds`, with its user.
    package func consumeOneTimeToken(hash: String, kinds: [OneTimeToken.Kind]) async throws -> (token: OneTimeToken, user: UserRecord)? {
        try await consumeOneTimeToken(.link(hash), kinds: kinds)
    }

    /// Deletes and returns the token whose emailed code has this hash (``OneTimeToken/codeHash``)
    /// and whose kind is one of `kinds`, with its user.
    package func consumeOneTimeToken(codeHash: String, kinds: [OneTimeToken.Kind]) async throws -> (token: OneTimeToken, user: UserRecord)? {
        try await consumeOneTimeToken(.code(codeHash), kinds: kinds)
    }
}
