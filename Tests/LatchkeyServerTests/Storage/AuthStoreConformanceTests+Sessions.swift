import Foundation
import Testing

@testable import LatchkeyServer

/// Sessions and refresh-token rotation: the part of the conformance suite that decides whether
/// users stay signed in, including under concurrency.
extension AuthStoreConformanceTests {
    /// Presents `token` at `now` under the server's rules (``RefreshRotation``), as a refresh
    /// does once it is admitted.
    func rotate(_ token: String, at now: Date = AuthStoreConformanceTests.t0, in store: any AuthStore) async throws -> RefreshRotation.Outcome {
        let request = RefreshRotation.Request(
            presentedToken: token, now: now, reuseInterval: 10, ipAddress: "127.0.0.1", successor: { [tokens] in tokens.successor(of: $0) })
        return try await store.rotateRefreshToken(hash: OpaqueTokens.hash(token)) { RefreshRotation.plan($0, request) }
    }

    /// A signed-up user with one session; returns the session and its first refresh token.
    func signedIn(_ store: any AuthStore, email: String = "s@example.com", notAfter: Date? = nil) async throws -> (UserRecord, SessionRecord, String)
    {
        let user = try await store.user(email: email) ?? Self.user(email)
        if try await store.user(id: user.id) == nil { try await store.insertUser(user, audit: nil) }
        let session = SessionRecord(userID: user.id, createdAt: t0, updatedAt: t0, refreshedAt: t0, notAfter: notAfter, authMethod: "password")
        let token = OpaqueTokens.random()
        try await store.createSession(session, refreshTokenHash: OpaqueTokens.hash(token), updatingUser: nil, audit: nil)
        return (user, session, token)
    }

    var t0: Date { Self.t0 }

    @Test("a session is stored with its user, saving the user in the same transaction", arguments: StoreKind.available)
    func createSession(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var user = Self.user("new-session@example.com")
            try await store.insertUser(user, audit: nil)
            user.lastSignInAt = t0.addingTimeInterval(30)
            let session = SessionRecord(
                userID: user.id, createdAt: t0, updatedAt: t0, refreshedAt: t0, notAfter: t0.addingTimeInterval(86_400), authMethod: "password")
            try await store.createSession(session, refreshTokenHash: OpaqueTokens.hash("t"), updatingUser: user, audit: Self.audit(.login, user))
            let found = try #require(try await store.sessionWithUser(id: session.id))
            #expect(found.session == session)
            #expect(found.user == user)
            #expect(try await store.sessionWithUser(id: UUID()) == nil)
            #expect(try await store.auditEntries(offset: 0, limit: 5).map(\.action) == [.login])
        }
    }

    @Test("creating a session is atomic: a failing user update leaves no session behind", arguments: StoreKind.available)
    func createSessionAtomic(kind: StoreKind) async throws {
        try await kind.withStore { store in
            try await store.insertUser(Self.user("taken@example.com"), audit: nil)
            var user = Self.user("atomic@example.com")
            try await store.insertUser(user, audit: nil)
            user.email = "taken@example.com"
            let session = SessionRecord(userID: user.id, createdAt: t0, updatedAt: t0, refreshedAt: t0, notAfter: nil, authMethod: "password")
            await #expect(throws: StoreError.duplicateEmail) {
                try await store.createSession(session, refreshTokenHash: OpaqueTokens.hash("x"), updatingUser: user, audit: Self.audit(.login, user))
            }
            #expect(try await store.sessionWithUser(id: session.id) == nil)
            #expect(try await store.auditEntries(offset: 0, limit: 5).isEmpty)
        }
    }

    @Test("endSessions ends all, all but one, or only one; ended tokens answer refresh_token_not_found", arguments: StoreKind.available)
    func endSessions(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (user, a, tokenA) = try await signedIn(store)
            let (_, b, _) = try await signedIn(store)
            let (_, c, _) = try await signedIn(store)
            let (other, d, _) = try await signedIn(store, email: "other@example.com")
            #expect(try await store.endSessions(userID: user.id, except: nil, only: b.id, audit: Self.audit(.logout, user)) == 1)
            #expect(try await store.sessionWithUser(id: b.id) == nil)
            #expect(try await store.endSessions(userID: user.id, except: a.id, only: nil, audit: nil) == 1)
            #expect(try await store.sessionWithUser(id: c.id) == nil)
            #expect(try await store.sessionWithUser(id: a.id) != nil)
            #expect(try await store.endSessions(userID: user.id, except: nil, only: d.id, audit: nil) == 0, "not this user's session")
            #expect(try await store.endSessions(userID: user.id, except: nil, only: nil, audit: nil) == 1)
            #expect(try await store.sessionWithUser(id: a.id) == nil)
            #expect(try await store.sessionWithUser(id: d.id)?.user.id == other.id, "other users keep theirs")
            #expect(try await rotate(tokenA, in: store).refusal == .refreshTokenNotFound)
            #expect(try await store.auditEntries(offset: 0, limit: 5).map(\.action) == [.logout])
        }
    }

    @Test("rotation: active token rotates; parent reuse and reuse in the interval give the active token", arguments: StoreKind.available)
    func rotation(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (user, session, t0Token) = try await signedIn(store)
            let first = try await rotate(t0Token, at: t0.addingTimeInterval(60), in: store)
            let t1 = try #require(first.issuedToken)
            #expect(t1 == tokens.successor(of: t0Token))
            #expect(first.issuedSession?.refreshedAt == t0.addingTimeInterval(60))
            #expect(first.issuedUser == user)
            #expect(try await store.sessionWithUser(id: session.id)?.session.refreshedAt == t0.addingTimeInterval(60))
            // The parent, a day later: the active token again, not a new one.
            #expect(try await rotate(t0Token, at: t0.addingTimeInterval(86_400), in: store).issuedToken == t1)
            let t2 = try #require(try await rotate(t1, at: t0.addingTimeInterval(100), in: store).issuedToken)
            // Another session: its grandparent token, 4 s after it was spent, is within the interval.
            let (_, _, g0) = try await signedIn(store)
            let g1 = try #require(try await rotate(g0, at: t0.addingTimeInterval(1), in: store).issuedToken)
            let g2 = try #require(try await rotate(g1, at: t0.addingTimeInterval(2), in: store).issuedToken)
            #expect(try await rotate(g0, at: t0.addingTimeInterval(5), in: store).issuedToken == g2)
            let refreshed = try await store.auditEntries(offset: 0, limit: 10).filter { $0.action == .tokenRefreshed }
            #expect(refreshed.count == 4, "handing back the active token is not a rotation")
            #expect(try await rotate(t2, at: t0.addingTimeInterval(200), in: store).issuedToken == tokens.successor(of: t2))
        }
    }

    @Test("reuse of an older token past the interval revokes the whole session", arguments: StoreKind.available)
    func reuseRevokes(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (_, session, token0) = try await signedIn(store)
            let token1 = try #require(try await rotate(token0, in: store).issuedToken)
            let token2 = try #require(try await rotate(token1, in: store).issuedToken)
            let reused = try await rotate(token0, at: t0.addingTimeInterval(60), in: store)
            #expect(reused.refusal == .refreshTokenAlreadyUsed)
            #expect(try await store.sessionWithUser(id: session.id) == nil)
            #expect(try await rotate(token2, at: t0.addingTimeInterval(61), in: store).refusal == .refreshTokenNotFound)
            let revoked = try #require(try await store.auditEntries(offset: 0, limit: 1).first)
            #expect(revoked.action == .tokenRevoked)
            #expect(revoked.traits["session_id"] == .string(session.id.uuidString.lowercased()))
        }
    }

    @Test("refusals: unknown token, expired session, banned user; a refusal spends nothing", arguments: StoreKind.available)
    func refusals(kind: StoreKind) async throws {
        try await kind.withStore { store in
            #expect(try await rotate("never-issued", in: store).refusal == .refreshTokenNotFound)
            let (_, _, timeboxed) = try await signedIn(store, email: "timebox@example.com", notAfter: t0.addingTimeInterval(600))
            #expect(try await rotate(timeboxed, at: t0.addingTimeInterval(601), in: store).refusal == .sessionExpired)
            let (signedUp, _, bannedToken) = try await signedIn(store, email: "banned@example.com")
            var banned = signedUp
            banned.bannedUntil = t0.addingTimeInterval(3600)
            try await store.updateUser(banned, audit: nil)
            #expect(try await rotate(bannedToken, in: store).refusal == .refreshUserBanned)
            try await store.updateUser(signedUp, audit: nil)
            #expect(try await rotate(bannedToken, in: store).issuedToken == tokens.successor(of: bannedToken), "the refused token was not spent")
            #expect(try await store.auditEntries(offset: 0, limit: 10).map(\.action) == [.tokenRefreshed], "refusals write nothing")
        }
    }

    @Test("a token's session is found by its hash, spent or not, and outlives the session", arguments: StoreKind.available)
    func sessionOfToken(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (user, session, token0) = try await signedIn(store)
            let token1 = try #require(try await rotate(token0, in: store).issuedToken)
            #expect(try await store.sessionID(ofRefreshTokenHash: OpaqueTokens.hash(token0)) == session.id, "spent")
            #expect(try await store.sessionID(ofRefreshTokenHash: OpaqueTokens.hash(token1)) == session.id, "active")
            #expect(try await store.sessionID(ofRefreshTokenHash: OpaqueTokens.hash("never-issued")) == nil)
            try await store.endSessions(userID: user.id, except: nil, only: nil, audit: nil)
            #expect(try await store.sessionID(ofRefreshTokenHash: OpaqueTokens.hash(token1)) == session.id, "tokens outlive their session")
            _ = try await store.deleteUser(id: user.id, audit: nil)
            #expect(try await store.sessionID(ofRefreshTokenHash: OpaqueTokens.hash(token1)) == nil, "and go with their user")
        }
    }

    @Test("the store writes whatever plan it is given and answers the plan's result", arguments: StoreKind.available)
    func appliesAnyPlan(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (user, session, token) = try await signedIn(store)
            let later = t0.addingTimeInterval(42)
            let marker = AuditEntry(action: .userModified, actorID: user.id, actorUsername: user.email, ipAddress: "10.0.0.1", createdAt: later)
            let seen = try await store.rotateRefreshToken(hash: OpaqueTokens.hash(token)) { state in
                RefreshTokenPlan(changes: [.touchSession(id: session.id, at: later), .audit(marker)], result: state)
            }
            #expect(seen.token?.tokenHash == OpaqueTokens.hash(token))
            #expect(seen.session?.id == session.id)
            #expect(seen.user == user)
            #expect(seen.activeToken == nil, "the active token is read only for a spent one")
            #expect(try await store.sessionWithUser(id: session.id)?.session.refreshedAt == later)
            #expect(try await store.auditEntries(offset: 0, limit: 5) == [marker])
            let unknown = try await store.rotateRefreshToken(hash: OpaqueTokens.hash("never-issued")) { state in
                RefreshTokenPlan(changes: [], result: state)
            }
            #expect(unknown == RefreshTokenState(token: nil, session: nil, user: nil, activeToken: nil))
        }
    }

    @Test("40 concurrent rotations of one token: exactly one successor, handed to every caller", arguments: StoreKind.available)
    func concurrentRotations(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (_, _, token) = try await signedIn(store)
            let outcomes = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<40 { group.addTask { try await rotate(token, in: store).issuedToken } }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(outcomes.allSatisfy { $0 != nil }, "nobody is signed out by the race")
            #expect(Set(outcomes) == [tokens.successor(of: token)])
            #expect(try await store.auditEntries(offset: 0, limit: 100).filter { $0.action == .tokenRefreshed }.count == 1)
            #expect(try await rotate(tokens.successor(of: token), in: store).issuedToken != nil, "the successor is live")
        }
    }
}

extension RefreshRotation.Outcome {
    var refusal: AuthError? {
        if case .refused(let error) = self { return error }
        return nil
    }
    var issuedToken: String? {
        if case .issued(_, _, let token) = self { return token }
        return nil
    }
    var issuedSession: SessionRecord? {
        if case .issued(let session, _, _) = self { return session }
        return nil
    }
    var issuedUser: UserRecord? {
        if case .issued(_, let user, _) = self { return user }
        return nil
    }
}

extension AuthStoreConformanceTests {
    @Test("a password change and the end of the user's other sessions are one write", arguments: StoreKind.available)
    func updateUserEndingSessions(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (user, kept, _) = try await signedIn(store, email: "change@example.com")
            let (_, other, otherToken) = try await signedIn(store, email: "change@example.com")
            let (_, third, _) = try await signedIn(store, email: "change@example.com")
            var changed = user
            changed.passwordHash = "$2b$04$anotherhashanotherhashan"
            try await store.updateUser(changed, audit: Self.audit(.userUpdatedPassword, changed), endingSessions: .allBut(kept.id))
            #expect(try await store.user(id: user.id)?.passwordHash == changed.passwordHash)
            #expect(try await store.sessionWithUser(id: kept.id) != nil, "the session that changed the password stays")
            #expect(try await store.sessionWithUser(id: other.id) == nil)
            #expect(try await store.sessionWithUser(id: third.id) == nil)
            #expect(try await rotate(otherToken, in: store).refusal == .refreshTokenNotFound, "an ended session's token renews nothing")

            try await store.updateUser(user, audit: nil, endingSessions: .all)
            #expect(try await store.sessionWithUser(id: kept.id) == nil)
        }
    }

    @Test("a fault while ending the other sessions leaves the old password and every session", arguments: StoreKind.available)
    func updateUserEndingSessionsIsAtomic(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (user, kept, _) = try await signedIn(store, email: "atomic@example.com")
            let (_, other, _) = try await signedIn(store, email: "atomic@example.com")
            try await FaultInjection.failDeletes(from: "sessions", in: store)
            var changed = user
            changed.passwordHash = "$2b$04$anotherhashanotherhashan"
            await #expect(throws: (any Error).self) {
                try await store.updateUser(changed, audit: Self.audit(.userUpdatedPassword, changed), endingSessions: .allBut(kept.id))
            }
            #expect(try await store.user(id: user.id)?.passwordHash == user.passwordHash, "the new password was not saved alone")
            #expect(try await store.sessionWithUser(id: other.id) != nil)
            #expect(try await store.auditEntries(offset: 0, limit: 10).isEmpty)
        }
    }
}
