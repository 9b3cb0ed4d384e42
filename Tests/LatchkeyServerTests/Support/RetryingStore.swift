import Foundation
import LatchkeyTestSupport

@testable import LatchkeyServer

/// A store that behaves as if every refresh rotation's transaction were rolled back once and
/// retried, as PostgreSQL does on a conflict: the plan runs twice, and only the second run's
/// changes are written. Everything else goes straight to `base`.
final class RetryingStore: AuthStore {
    let base: any AuthStore
    private let runs = Locked(0)

    init(_ base: any AuthStore) {
        self.base = base
    }

    /// How many times a rotation plan has run.
    var planRuns: Int { runs.withLock { $0 } }

    func rotateRefreshToken<Result: Sendable>(
        hash: String, admission: RefreshAdmission?, plan: @escaping @Sendable (RefreshTokenState) -> RefreshTokenPlan<Result>
    ) async throws -> Result {
        try await base.rotateRefreshToken(hash: hash, admission: admission) { state in
            _ = plan(state)  // the attempt that was rolled back
            self.runs.withLock { $0 += 2 }
            return plan(state)
        }
    }

    func factors(userID: UUID) async throws -> [FactorRecord] { try await base.factors(userID: userID) }
    func changeFactors<Result: Sendable>(
        of userID: UUID, challengeID: UUID?, sessionID: UUID?, plan: @escaping @Sendable (FactorState) -> FactorPlan<Result>
    ) async throws -> Result {
        try await base.changeFactors(of: userID, challengeID: challengeID, sessionID: sessionID, plan: plan)
    }
    func saveProviderFlow(_ flow: ProviderFlow, deletingStartedBefore cutoff: Date) async throws {
        try await base.saveProviderFlow(flow, deletingStartedBefore: cutoff)
    }
    func consumeProviderFlow(id: UUID) async throws -> ProviderFlow? { try await base.consumeProviderFlow(id: id) }
    func passkeys(userID: UUID) async throws -> [PasskeyRecord] { try await base.passkeys(userID: userID) }
    func passkey(credentialID: [UInt8]) async throws -> PasskeyRecord? { try await base.passkey(credentialID: credentialID) }
    func changePasskeys<Result: Sendable>(
        of userID: UUID, plan: @escaping @Sendable ([PasskeyRecord]) throws -> PasskeyPlan<Result>
    ) async throws -> Result { try await base.changePasskeys(of: userID, plan: plan) }
    func saveWebAuthnChallenge(_ challenge: WebAuthnChallengeRecord, deletingExpiredBefore cutoff: Date) async throws {
        try await base.saveWebAuthnChallenge(challenge, deletingExpiredBefore: cutoff)
    }
    func consumeWebAuthnChallenge(id: UUID, kind: WebAuthnChallengeRecord.Kind, userID: UUID?) async throws -> WebAuthnChallengeRecord? {
        try await base.consumeWebAuthnChallenge(id: id, kind: kind, userID: userID)
    }
    func identities(userID: UUID) async throws -> [IdentityRecord] { try await base.identities(userID: userID) }
    func customProviders() async throws -> [CustomProviderRecord] { try await base.customProviders() }
    func customProvider(identifier: String) async throws -> CustomProviderRecord? { try await base.customProvider(identifier: identifier) }
    func insertCustomProvider(_ provider: CustomProviderRecord) async throws -> Bool { try await base.insertCustomProvider(provider) }
    func updateCustomProvider(_ provider: CustomProviderRecord) async throws -> Bool { try await base.updateCustomProvider(provider) }
    func deleteCustomProvider(identifier: String) async throws -> Bool { try await base.deleteCustomProvider(identifier: identifier) }
    func oauthClients() async throws -> [OAuthClientRecord] { try await base.oauthClients() }
    func oauthClient(id: UUID) async throws -> OAuthClientRecord? { try await base.oauthClient(id: id) }
    func insertOAuthClient(_ client: OAuthClientRecord) async throws { try await base.insertOAuthClient(client) }
    func updateOAuthClient(_ client: OAuthClientRecord) async throws -> Bool { try await base.updateOAuthClient(client) }
    func insertOAuthAuthorization(_ authorization: OAuthAuthorizationRecord) async throws {
        try await base.insertOAuthAuthorization(authorization)
    }
    func oauthAuthorization(id: String) async throws -> OAuthAuthorizationRecord? { try await base.oauthAuthorization(id: id) }
    func oauthAuthorization(codeHash: String) async throws -> OAuthAuthorizationRecord? {
        try await base.oauthAuthorization(codeHash: codeHash)
    }
    func updateOAuthAuthorization(_ updated: OAuthAuthorizationRecord, from previous: OAuthAuthorizationRecord) async throws -> Bool {
        try await base.updateOAuthAuthorization(updated, from: previous)
    }
    func oauthConsent(userID: UUID, clientID: UUID) async throws -> OAuthConsentRecord? {
        try await base.oauthConsent(userID: userID, clientID: clientID)
    }
    func oauthConsents(userID: UUID) async throws -> [OAuthConsentRecord] { try await base.oauthConsents(userID: userID) }
    func saveOAuthConsent(_ consent: OAuthConsentRecord) async throws { try await base.saveOAuthConsent(consent) }
    func revokeOAuthConsent(userID: UUID, clientID: UUID, at date: Date, audit: AuditEntry?) async throws -> Bool {
        try await base.revokeOAuthConsent(userID: userID, clientID: clientID, at: date, audit: audit)
    }
    func changeIdentities<Result: Sendable>(
        _ lookup: IdentityLookup, plan: @escaping @Sendable (IdentityState) throws -> IdentityPlan<Result>
    ) async throws -> Result {
        try await base.changeIdentities(lookup, plan: plan)
    }
    func sessionID(ofRefreshTokenHash hash: String) async throws -> UUID? { try await base.sessionID(ofRefreshTokenHash: hash) }
    func insertUser(_ user: UserRecord, audit: AuditEntry?) async throws { try await base.insertUser(user, audit: audit) }
    func insertUser(_ user: UserRecord, audit: AuditEntry?, start: NewAccountStart) async throws {
        try await base.insertUser(user, audit: audit, start: start)
    }
    func deleteStaleRows(_ cutoffs: StaleRowCutoffs, limit: Int) async throws -> StaleRowCounts {
        try await base.deleteStaleRows(cutoffs, limit: limit)
    }
    func user(id: UUID) async throws -> UserRecord? { try await base.user(id: id) }
    func user(email: String) async throws -> UserRecord? { try await base.user(email: email) }
    func user(phone: String) async throws -> UserRecord? { try await base.user(phone: phone) }
    func updateUser(_ user: UserRecord, audit: AuditEntry?, endingSessions: SessionsToEnd?) async throws {
        try await base.updateUser(user, audit: audit, endingSessions: endingSessions)
    }
    func deleteUser(id: UUID, audit: AuditEntry?) async throws -> Bool { try await base.deleteUser(id: id, audit: audit) }
    func listUsers(offset: Int, limit: Int, listing: UserListing) async throws -> (users: [UserRecord], total: Int) {
        try await base.listUsers(offset: offset, limit: limit, listing: listing)
    }
    func createSession(_ session: SessionRecord, refreshTokenHash: String, updatingUser: UserRecord?, audit: AuditEntry?) async throws {
        try await base.createSession(session, refreshTokenHash: refreshTokenHash, updatingUser: updatingUser, audit: audit)
    }
    func sessionWithUser(id: UUID) async throws -> (session: SessionRecord, user: UserRecord)? { try await base.sessionWithUser(id: id) }
    func endSessions(userID: UUID, except: UUID?, only: UUID?, audit: AuditEntry?) async throws -> Int {
        try await base.endSessions(userID: userID, except: except, only: only, audit: audit)
    }
    func saveOneTimeToken(_ token: OneTimeToken, updatingUser: UserRecord?, audit: AuditEntry?) async throws {
        try await base.saveOneTimeToken(token, updatingUser: updatingUser, audit: audit)
    }
    func consumeOneTimeToken(_ hash: OneTimeToken.Hash, kinds: [OneTimeToken.Kind]) async throws -> (token: OneTimeToken, user: UserRecord)? {
        try await base.consumeOneTimeToken(hash, kinds: kinds)
    }
    func hasOneTimeToken(userID: UUID, kind: OneTimeToken.Kind) async throws -> Bool {
        try await base.hasOneTimeToken(userID: userID, kind: kind)
    }
    func saveFlowState(_ flow: FlowState) async throws { try await base.saveFlowState(flow) }
    func issueAuthCode(userID: UUID, authenticationMethod: String, authCodeHash: String, issuedAt: Date) async throws -> FlowState? {
        try await base.issueAuthCode(userID: userID, authenticationMethod: authenticationMethod, authCodeHash: authCodeHash, issuedAt: issuedAt)
    }
    func consumeFlowState(authCodeHash: String) async throws -> FlowState? { try await base.consumeFlowState(authCodeHash: authCodeHash) }
    func keepProviderRefreshToken(_ token: ProviderRefreshTokenRecord) async throws { try await base.keepProviderRefreshToken(token) }
    func providerRefreshTokens(userID: UUID) async throws -> [ProviderRefreshTokenRecord] {
        try await base.providerRefreshTokens(userID: userID)
    }
    func appendAudit(_ entry: AuditEntry) async throws { try await base.appendAudit(entry) }
    func auditEntries(offset: Int, limit: Int) async throws -> [AuditEntry] { try await base.auditEntries(offset: offset, limit: limit) }
    func close() async throws { try await base.close() }
}
