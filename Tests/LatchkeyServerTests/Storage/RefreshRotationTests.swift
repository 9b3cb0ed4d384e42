import Foundation
import Testing
@testable import LatchkeyServer

/// The pure refresh decision, case by case.
@Suite("RefreshRotation.decide")
struct RefreshRotationTests {
    let tokens = OpaqueTokens(jwtSecret: String(repeating: "s", count: 40))
    let now = Date(timeIntervalSince1970: 2_000_000_000)
    let user = UserRecord(email: "a@example.com", passwordHash: nil, createdAt: Date(timeIntervalSince1970: 0), updatedAt: Date(timeIntervalSince1970: 0))

    func request(_ token: String, interval: TimeInterval = 10) -> RefreshRotation.Request {
        RefreshRotation.Request(presentedToken: token, now: now, reuseInterval: interval, ipAddress: "127.0.0.1", successor: { [tokens] in tokens.successor(of: $0) })
    }

    func session() -> SessionRecord {
        SessionRecord(userID: user.id, createdAt: now, updatedAt: now, refreshedAt: now, notAfter: nil, authMethod: "password")
    }

    func record(_ token: String, session: SessionRecord, revokedAt: Date?) -> RefreshTokenRecord {
        RefreshTokenRecord(tokenHash: OpaqueTokens.hash(token), sessionID: session.id, userID: user.id, parentHash: nil, revokedAt: revokedAt, createdAt: now)
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
        let decision = RefreshRotation.decide(presented: t, token: record(t, session: s, revokedAt: nil), session: s, user: user, activeToken: nil, request: request(t))
        let successor = tokens.successor(of: t)
        #expect(decision == .rotate(successor: successor, successorHash: OpaqueTokens.hash(successor)))
    }

    @Test func parentOfActiveIsForgivenForever() {
        let s = session()
        let t0 = OpaqueTokens.random()
        let t1 = tokens.successor(of: t0)
        let decision = RefreshRotation.decide(
            presented: t0, token: record(t0, session: s, revokedAt: now.addingTimeInterval(-86_400)), session: s, user: user,
            activeToken: record(t1, session: s, revokedAt: nil), request: request(t0))
        #expect(decision == .returnActive(token: t1))
    }

    @Test func grandparentOnlyWithinInterval() {
        let s = session()
        let t0 = OpaqueTokens.random()
        let t2 = tokens.successor(of: tokens.successor(of: t0))
        let recent = RefreshRotation.decide(
            presented: t0, token: record(t0, session: s, revokedAt: now.addingTimeInterval(-3)), session: s, user: user,
            activeToken: record(t2, session: s, revokedAt: nil), request: request(t0))
        #expect(recent == .returnActive(token: t2))
        let old = RefreshRotation.decide(
            presented: t0, token: record(t0, session: s, revokedAt: now.addingTimeInterval(-30)), session: s, user: user,
            activeToken: record(t2, session: s, revokedAt: nil), request: request(t0))
        #expect(old == .revokeSession)
    }

    @Test func unrelatedSpentTokenRevokes() {
        let s = session()
        let stranger = OpaqueTokens.random()
        let decision = RefreshRotation.decide(
            presented: stranger, token: record(stranger, session: s, revokedAt: now.addingTimeInterval(-1)), session: s, user: user,
            activeToken: record(OpaqueTokens.random(), session: s, revokedAt: nil), request: request(stranger))
        #expect(decision == .revokeSession)
    }

    @Test func missingPiecesAreDefinitiveRefusals() {
        let s = session()
        let t = OpaqueTokens.random()
        #expect(RefreshRotation.decide(presented: t, token: nil, session: nil, user: nil, activeToken: nil, request: request(t)) == .refuse(.refreshTokenNotFound))
        #expect(RefreshRotation.decide(presented: t, token: record(t, session: s, revokedAt: nil), session: nil, user: user, activeToken: nil, request: request(t)) == .refuse(.sessionNotFound))
        var expired = s
        expired.notAfter = now
        #expect(RefreshRotation.decide(presented: t, token: record(t, session: s, revokedAt: nil), session: expired, user: user, activeToken: nil, request: request(t)) == .refuse(.sessionExpired))
        var banned = user
        banned.bannedUntil = now.addingTimeInterval(60)
        #expect(RefreshRotation.decide(presented: t, token: record(t, session: s, revokedAt: nil), session: s, user: banned, activeToken: nil, request: request(t)) == .refuse(.userBanned))
    }
}
