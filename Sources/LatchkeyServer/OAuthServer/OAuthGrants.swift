import Foundation
import LatchkeyWire

/// The apps a user let sign in as them (`GET /user/oauth/grants`), and taking that back
/// (`DELETE /user/oauth/grants?client_id=`), which ends every session the app holds for the
/// user at once: its refresh tokens stop working, and its access tokens with them wherever
/// the session is checked.
struct OAuthGrants: Sendable {
    let store: any AuthStore
    let clock: any ServerClock

    /// The user's standing grants, most recent first; grants to deleted clients are left out.
    func list(for user: UserRecord) async throws -> [OAuthGrantResponse] {
        var grants: [OAuthGrantResponse] = []
        for consent in try await store.oauthConsents(userID: user.id) {
            guard let client = try await store.oauthClient(id: consent.clientID) else { continue }
            grants.append(
                OAuthGrantResponse(client: OAuthClientSummary(client), scopes: consent.scopes, granted_at: WireDate.format(consent.grantedAt)))
        }
        return grants
    }

    /// Revokes the user's grant to the client `clientText` names, ending its sessions: 404
    /// `oauth_consent_not_found` when none stands.
    func revoke(_ clientText: String?, for user: UserRecord, ipAddress: String) async throws {
        guard let clientText, !clientText.isEmpty else { throw AuthError.grantClientIDRequired }
        guard let clientID = UUID(uuidString: clientText) else { throw AuthError.oauthClientIDInvalid }
        let now = clock.now()
        let audit = AuditEntry(
            action: .tokenRevoked, actorID: user.id, actorUsername: user.email,
            traits: ["oauth_client_id": .string(clientID.lowercasedString), "action": .string("revoke_oauth_grant")], ipAddress: ipAddress,
            createdAt: now)
        guard try await store.revokeOAuthConsent(userID: user.id, clientID: clientID, at: now, audit: audit) else {
            throw AuthError.grantNotFound
        }
    }
}
