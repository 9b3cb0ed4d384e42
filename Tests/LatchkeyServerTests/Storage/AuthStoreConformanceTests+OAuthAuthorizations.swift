import Foundation
import Testing

@testable import LatchkeyServer

/// The OAuth server's authorizations, consents and client sessions, against every store.
extension AuthStoreConformanceTests {
    @Test(
        "an OAuth authorization is read back by id and by code hash, and changes only from the state it was read in",
        arguments: StoreKind.available)
    func oauthAuthorizationRoundTrip(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let pending = OAuthAuthorizationRecord(
                id: OAuthAuthorizations.authorizationID(), clientID: UUID(), redirectURI: "https://app.example/cb", scope: "openid email",
                state: "s", resource: nil, codeChallenge: String(repeating: "c", count: 43), nonce: "n", createdAt: Self.t0,
                expiresAt: Self.t0.addingTimeInterval(600))
            try await store.insertOAuthAuthorization(pending)
            #expect(try await store.oauthAuthorization(id: pending.id) == pending)
            #expect(try await store.oauthAuthorization(id: "missing") == nil)

            var bound = pending
            bound.userID = UUID()
            var otherUser = pending
            otherUser.userID = UUID()
            #expect(try await store.updateOAuthAuthorization(bound, from: pending))
            #expect(!(try await store.updateOAuthAuthorization(otherUser, from: pending)), "the first reader keeps it")

            var approved = bound
            approved.status = .approved
            approved.codeHash = OpaqueTokens.hash("code")
            #expect(try await store.updateOAuthAuthorization(approved, from: bound))
            #expect(!(try await store.updateOAuthAuthorization(approved, from: bound)), "a second approval finds it approved")
            #expect(try await store.oauthAuthorization(codeHash: OpaqueTokens.hash("code")) == approved)
            #expect(try await store.oauthAuthorization(codeHash: OpaqueTokens.hash("other")) == nil)
        }
    }

    @Test(
        "a consent is saved once per user and client, listed while it stands, and revoking it ends only that client's sessions",
        arguments: StoreKind.available)
    func oauthConsents(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let user = Self.user("consent@example.com")
            try await store.insertUser(user, audit: nil)
            let (first, second) = (UUID(), UUID())
            try await store.saveOAuthConsent(OAuthConsentRecord(userID: user.id, clientID: first, scopes: ["email"], grantedAt: Self.t0))
            try await store.saveOAuthConsent(
                OAuthConsentRecord(userID: user.id, clientID: second, scopes: ["openid"], grantedAt: Self.t0.addingTimeInterval(60)))
            let widened = OAuthConsentRecord(
                userID: user.id, clientID: first, scopes: ["email", "profile"], grantedAt: Self.t0.addingTimeInterval(120))
            try await store.saveOAuthConsent(widened)
            #expect(try await store.oauthConsents(userID: user.id).map(\.clientID) == [first, second])
            #expect(try await store.oauthConsent(userID: user.id, clientID: first) == widened)

            func session(_ client: UUID?) async throws -> (SessionRecord, String) {
                let refresh = OpaqueTokens.random()
                let session = SessionRecord(
                    userID: user.id, createdAt: Self.t0, updatedAt: Self.t0, refreshedAt: Self.t0, notAfter: nil,
                    authMethod: client == nil ? "password" : OAuthTokens.authenticationMethod, oauthClientID: client,
                    scopes: client == nil ? nil : "email profile")
                try await store.createSession(session, refreshTokenHash: OpaqueTokens.hash(refresh), updatingUser: nil, audit: nil)
                return (session, refresh)
            }
            let (own, _) = try await session(nil)
            let (granted, grantedRefresh) = try await session(first)
            let (other, _) = try await session(second)
            #expect(try await store.sessionWithUser(id: granted.id)?.session == granted, "the client and scopes are read back")

            let now = Self.t0.addingTimeInterval(180)
            #expect(try await store.revokeOAuthConsent(userID: user.id, clientID: first, at: now, audit: Self.audit(.tokenRevoked, user)))
            #expect(!(try await store.revokeOAuthConsent(userID: user.id, clientID: first, at: now, audit: nil)), "revoked once")
            #expect(try await store.sessionWithUser(id: granted.id) == nil)
            #expect(try await store.sessionWithUser(id: own.id) != nil)
            #expect(try await store.sessionWithUser(id: other.id) != nil)
            #expect(try await rotate(grantedRefresh, in: store).refusal == .refreshTokenNotFound)
            #expect(try await store.oauthConsents(userID: user.id).map(\.clientID) == [second])
            #expect(try await store.oauthConsent(userID: user.id, clientID: first)?.revokedAt == now)

            // Approving again stands again.
            try await store.saveOAuthConsent(OAuthConsentRecord(userID: user.id, clientID: first, scopes: ["email"], grantedAt: now))
            #expect(Set(try await store.oauthConsents(userID: user.id).map(\.clientID)) == [first, second])
        }
    }

    @Test("cleanup deletes OAuth authorizations that expired before the cutoff, in batches, and no others", arguments: StoreKind.available)
    func oauthAuthorizationCleanup(kind: StoreKind) async throws {
        try await kind.withStore { store in
            func authorization(expiringAt date: Date) -> OAuthAuthorizationRecord {
                OAuthAuthorizationRecord(
                    id: OAuthAuthorizations.authorizationID(), clientID: UUID(), redirectURI: "https://app.example/cb", scope: "email",
                    state: nil, resource: nil, codeChallenge: String(repeating: "c", count: 43), nonce: nil,
                    createdAt: date.addingTimeInterval(-600), expiresAt: date)
            }
            let old = (0..<3).map { authorization(expiringAt: Self.t0.addingTimeInterval(Double(-100 - $0))) }
            let current = authorization(expiringAt: Self.t0.addingTimeInterval(100))
            for record in old + [current] { try await store.insertOAuthAuthorization(record) }
            let cutoffs = StaleRowCutoffs(
                refreshTokensSpentBefore: .distantPast, sessionsEndedBefore: .distantPast, sessionsRefreshedBefore: nil,
                oneTimeTokensCreatedBefore: .distantPast, flowStatesCreatedBefore: .distantPast, auditEntriesCreatedBefore: .distantPast,
                oauthAuthorizationsExpiredBefore: Self.t0)
            let first = try await store.deleteStaleRows(cutoffs, limit: 2)
            #expect(first.oauthAuthorizations == 2 && first.filled(2))
            #expect(try await store.deleteStaleRows(cutoffs, limit: 2).oauthAuthorizations == 1)
            #expect(try await store.deleteStaleRows(cutoffs, limit: 2) == StaleRowCounts())
            for record in old { #expect(try await store.oauthAuthorization(id: record.id) == nil) }
            #expect(try await store.oauthAuthorization(id: current.id) == current)
        }
    }
}
