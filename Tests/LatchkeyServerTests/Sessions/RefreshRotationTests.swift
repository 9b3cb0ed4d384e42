import Foundation
import Testing

@testable import LatchkeyServer

/// The pure refresh rules, case by case: the decision, and the changes that carry it out.
@Suite("RefreshRotation")
struct RefreshRotationTests {
    let tokens = OpaqueTokens(jwtSecret: String(repeating: "s", count: 40))
    let now = Date(timeIntervalSince1970: 2_000_000_000)
    let user = UserRecord(
        email: "a@example.com", passwordHash: nil, createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))

    func request(_ token: String) -> RefreshRotation.Request {
        RefreshRotation.Request(
            presentedToken: token, now: now, reuseInterval: 10, ipAddress: "127.0.0.1", successor: { [tokens] in tokens.successor(of: $0) })
    }

    /// The decision for `token`, presented while the store holds these records.
    func decide(
        _ token: String, record: RefreshTokenRecord?, session: SessionRecord?, user: UserRecord?, active: RefreshTokenRecord? = nil
    ) -> RefreshRotation.Decision {
        RefreshRotation.decide(RefreshTokenState(token: record, session: session, user: user, activeToken: active), request(token))
    }

    func session() -> SessionRecord {
        SessionRecord(userID: user.id, createdAt: now, updatedAt: now, refreshedAt: now, notAfter: nil, authMethod: "password")
    }

    func record(_ token: String, session: SessionRecord, revokedAt: Date?) -> RefreshTokenRecord {
        RefreshTokenRecord(
            tokenHash: OpaqueTokens.hash(token), sessionID: session.id, userID: user.id, parentHash: nil, revokedAt: revokedAt, createdAt: now)
    }

    @Test func successorsAreDeterministicAndDistinct() {
        let parent = OpaqueTokens.random()
        #expect(tokens.successor(of: parent) == tokens.successor(of: parent))
        #expect(tokens.successor(of: parent) != parent)
        #expect(OpaqueTokens(jwtSecret: String(repeating: "t", count: 40)).successor(of: parent) != tokens.successor(of: parent))
        #expect(OpaqueTokens.random() != OpaqueTokens.random())
    }

    @Test func activeTokenRotates() {
        let s = session()
        let t = OpaqueTokens.random()
        let decision = decide(t, record: record(t, session: s, revokedAt: nil), session: s, user: user)
        let successor = tokens.successor(of: t)
        #expect(decision == .rotate(successor: successor, successorHash: OpaqueTokens.hash(successor)))
    }

    @Test func parentOfActiveIsForgivenForever() {
        let s = session()
        let t0 = OpaqueTokens.random()
        let t1 = tokens.successor(of: t0)
        let decision = decide(
            t0, record: record(t0, session: s, revokedAt: now.addingTimeInterval(-86_400)), session: s, user: user,
            active: record(t1, session: s, revokedAt: nil))
        #expect(decision == .returnActive(token: t1))
    }

    @Test func grandparentOnlyWithinInterval() {
        let s = session()
        let t0 = OpaqueTokens.random()
        let t2 = tokens.successor(of: tokens.successor(of: t0))
        let recent = decide(
            t0, record: record(t0, session: s, revokedAt: now.addingTimeInterval(-3)), session: s, user: user,
            active: record(t2, session: s, revokedAt: nil))
        #expect(recent == .returnActive(token: t2))
        let old = decide(
            t0, record: record(t0, session: s, revokedAt: now.addingTimeInterval(-30)), session: s, user: user,
            active: record(t2, session: s, revokedAt: nil))
        #expect(old == .revokeSession)
    }

    @Test func unrelatedSpentTokenRevokes() {
        let s = session()
        let stranger = OpaqueTokens.random()
        let decision = decide(
            stranger, record: record(stranger, session: s, revokedAt: now.addingTimeInterval(-1)), session: s, user: user,
            active: record(OpaqueTokens.random(), session: s, revokedAt: nil))
        #expect(decision == .revokeSession)
    }

    @Test func missingPiecesAreDefinitiveRefusals() {
        let s = session()
        let t = OpaqueTokens.random()
        #expect(decide(t, record: nil, session: nil, user: nil) == .refuse(.refreshTokenNotFound))
        #expect(decide(t, record: record(t, session: s, revokedAt: nil), session: nil, user: user) == .refuse(.refreshTokenNotFound))
        var expired = s
        expired.notAfter = now
        #expect(decide(t, record: record(t, session: s, revokedAt: nil), session: expired, user: user) == .refuse(.sessionExpired))
        var banned = user
        banned.bannedUntil = now.addingTimeInterval(60)
        #expect(decide(t, record: record(t, session: s, revokedAt: nil), session: s, user: banned) == .refuse(.refreshUserBanned))
    }

    // MARK: Carrying a decision out

    @Test func rotationSpendsAddsTouchesAndAudits() throws {
        let s = session()
        let t = OpaqueTokens.random()
        let spent = record(t, session: s, revokedAt: nil)
        let plan = RefreshRotation.plan(RefreshTokenState(token: spent, session: s, user: user, activeToken: nil), request(t))
        let successor = tokens.successor(of: t)
        #expect(plan.changes.count == 4)
        #expect(plan.changes.first == .markSpent(tokenHash: spent.tokenHash, at: now))
        #expect(
            plan.changes.contains(
                .insertToken(
                    RefreshTokenRecord(
                        tokenHash: OpaqueTokens.hash(successor), sessionID: s.id, userID: user.id, parentHash: spent.tokenHash, revokedAt: nil,
                        createdAt: now))))
        #expect(plan.changes.contains(.touchSession(id: s.id, at: now)))
        guard case .audit(let entry) = try #require(plan.changes.last) else {
            Issue.record("no audit entry")
            return
        }
        #expect(entry.action == .tokenRefreshed && entry.actorID == user.id && entry.ipAddress == "127.0.0.1")
        var touched = s
        touched.refreshedAt = now
        touched.updatedAt = now
        #expect(plan.result == .issued(session: touched, user: user, refreshToken: successor))
    }

    @Test func reuseRevokesTheSessionAndAuditsWhy() throws {
        let s = session()
        let stranger = OpaqueTokens.random()
        let state = RefreshTokenState(
            token: record(stranger, session: s, revokedAt: now.addingTimeInterval(-60)), session: s, user: user,
            activeToken: record(OpaqueTokens.random(), session: s, revokedAt: nil))
        let plan = RefreshRotation.plan(state, request(stranger))
        #expect(plan.result == .refused(.refreshTokenAlreadyUsed))
        #expect(plan.changes.first == .revokeSession(id: s.id, at: now))
        guard case .audit(let entry) = try #require(plan.changes.last), plan.changes.count == 2 else {
            Issue.record("no audit entry")
            return
        }
        #expect(entry.action == .tokenRevoked)
        #expect(entry.traits == ["reason": .string("refresh_token_reuse_detected"), "session_id": .string(s.id.uuidString.lowercased())])
    }

    @Test func handingBackTheActiveTokenAndRefusalsWriteNothing() {
        let s = session()
        let t0 = OpaqueTokens.random()
        let t1 = tokens.successor(of: t0)
        let parent = RefreshTokenState(
            token: record(t0, session: s, revokedAt: now.addingTimeInterval(-1)), session: s, user: user,
            activeToken: record(t1, session: s, revokedAt: nil))
        let handedBack = RefreshRotation.plan(parent, request(t0))
        #expect(handedBack.changes.isEmpty)
        #expect(handedBack.result == .issued(session: s, user: user, refreshToken: t1))
        let unknown = RefreshRotation.plan(RefreshTokenState(token: nil, session: nil, user: nil, activeToken: nil), request(t0))
        #expect(unknown.changes.isEmpty)
        #expect(unknown.result == .refused(.refreshTokenNotFound))
    }
}
