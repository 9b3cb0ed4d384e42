import Foundation
import Testing
@testable import LatchkeyServer

/// Sessions and refresh-token rotation: the part of the conformance suite that decides whether
/// users stay signed in, including under concurrency.
extension AuthStoreConformanceTests {
    /// A rotation request for `token` at `now`.
    func rotation(_ token: String, at now: Date = AuthStoreConformanceTests.t0, admit: @escaping @Sendable (UUID) -> Int? = { _ in nil }) -> RefreshRotation.Request {
        RefreshRotation.Request(
            presentedToken: token, now: now, reuseInterval: 10, ipAddress: "127.0.0.1", successor: { [tokens] in tokens.successor(of: $0) },
            admit: admit)
    }

    /// A signed-up user with one session; returns the session and its first refresh token.
    func signedIn(_ store: any AuthStore, email: String = "s@example.com", notAfter: Date? = nil) async throws -> (UserRecord, SessionRecord, String) {
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

    @Test("endSessions ends all, all but one, or only one; ended tokens answer session_not_found", arguments: StoreKind.available)
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
            #expect(try await store.rotateRefreshToken(rotation(tokenA)).refusal == .sessionNotFound)
            #expect(try await store.auditEntries(offset: 0, limit: 5).map(\.action) == [.logout])
        }
    }

    @Test("rotation: active token rotates; parent reuse and reuse in the interval give the active token", arguments: StoreKind.available)
    func rotation(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (user, session, t0Token) = try await signedIn(store)
            let first = try await store.rotateRefreshToken(rotation(t0Token, at: t0.addingTimeInterval(60)))
            let t1 = try #require(first.issuedToken)
            #expect(t1 == tokens.successor(of: t0Token))
            #expect(first.issuedSession?.refreshedAt == t0.addingTimeInterval(60))
            #expect(first.issuedUser == user)
            #expect(try await store.sessionWithUser(id: session.id)?.session.refreshedAt == t0.addingTimeInterval(60))
            // The parent, a day later: the active token again, not a new one.
            #expect(try await store.rotateRefreshToken(rotation(t0Token, at: t0.addingTimeInterval(86_400))).issuedToken == t1)
            let t2 = try #require(try await store.rotateRefreshToken(rotation(t1, at: t0.addingTimeInterval(100))).issuedToken)
            // Another session: its grandparent token, 4 s after it was spent, is within the interval.
            let (_, _, g0) = try await signedIn(store)
            let g1 = try #require(try await store.rotateRefreshToken(rotation(g0, at: t0.addingTimeInterval(1))).issuedToken)
            let g2 = try #require(try await store.rotateRefreshToken(rotation(g1, at: t0.addingTimeInterval(2))).issuedToken)
            #expect(try await store.rotateRefreshToken(rotation(g0, at: t0.addingTimeInterval(5))).issuedToken == g2)
            let refreshed = try await store.auditEntries(offset: 0, limit: 10).filter { $0.action == .tokenRefreshed }
            #expect(refreshed.count == 4, "handing back the active token is not a rotation")
            #expect(try await store.rotateRefreshToken(rotation(t2, at: t0.addingTimeInterval(200))).issuedToken == tokens.successor(of: t2))
        }
    }

    @Test("reuse of an older token past the interval revokes the whole session", arguments: StoreKind.available)
    func reuseRevokes(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (_, session, token0) = try await signedIn(store)
            let token1 = try #require(try await store.rotateRefreshToken(rotation(token0)).issuedToken)
            let token2 = try #require(try await store.rotateRefreshToken(rotation(token1)).issuedToken)
            let reused = try await store.rotateRefreshToken(rotation(token0, at: t0.addingTimeInterval(60)))
            #expect(reused.refusal == .refreshTokenAlreadyUsed)
            #expect(try await store.sessionWithUser(id: session.id) == nil)
            #expect(try await store.rotateRefreshToken(rotation(token2, at: t0.addingTimeInterval(61))).refusal == .sessionNotFound)
            let revoked = try #require(try await store.auditEntries(offset: 0, limit: 1).first)
            #expect(revoked.action == .tokenRevoked)
            #expect(revoked.traits["session_id"] == .string(session.id.uuidString.lowercased()))
        }
    }

    @Test("refusals: unknown token, expired session, banned user, rate limit", arguments: StoreKind.available)
    func refusals(kind: StoreKind) async throws {
        try await kind.withStore { store in
            #expect(try await store.rotateRefreshToken(rotation("never-issued")).refusal == .refreshTokenNotFound)
            let (_, _, timeboxed) = try await signedIn(store, email: "timebox@example.com", notAfter: t0.addingTimeInterval(600))
            #expect(try await store.rotateRefreshToken(rotation(timeboxed, at: t0.addingTimeInterval(601))).refusal == .sessionExpired)
            let (signedUp, _, bannedToken) = try await signedIn(store, email: "banned@example.com")
            var banned = signedUp
            banned.bannedUntil = t0.addingTimeInterval(3600)
            try await store.updateUser(banned, audit: nil)
            #expect(try await store.rotateRefreshToken(rotation(bannedToken)).refusal == .userBanned)
            let (_, _, limited) = try await signedIn(store, email: "limited@example.com")
            #expect(try await store.rotateRefreshToken(rotation(limited, admit: { _ in 42 })).refusal == .rateLimited(retryAfter: 42))
            #expect(try await store.rotateRefreshToken(rotation(limited)).issuedToken != nil, "a refused refresh spends nothing")
        }
    }

    @Test("40 concurrent rotations of one token: exactly one successor, handed to every caller", arguments: StoreKind.available)
    func concurrentRotations(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (_, _, token) = try await signedIn(store)
            let outcomes = try await withThrowingTaskGroup(of: String?.self) { group in
                for _ in 0..<40 { group.addTask { try await store.rotateRefreshToken(rotation(token)).issuedToken } }
                return try await group.reduce(into: [String?]()) { $0.append($1) }
            }
            #expect(outcomes.allSatisfy { $0 != nil }, "nobody is signed out by the race")
            #expect(Set(outcomes) == [tokens.successor(of: token)])
            #expect(try await store.auditEntries(offset: 0, limit: 100).filter { $0.action == .tokenRefreshed }.count == 1)
            #expect(try await store.rotateRefreshToken(rotation(tokens.successor(of: token))).issuedToken != nil, "the successor is live")
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
