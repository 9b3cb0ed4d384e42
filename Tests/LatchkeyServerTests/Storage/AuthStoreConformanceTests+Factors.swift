import Foundation
import Testing

@testable import LatchkeyServer

/// Factors, challenges and sessions' assurance levels, against every store.
extension AuthStoreConformanceTests {
    static func factor(_ user: UserRecord, name: String, status: FactorRecord.Status = .unverified, createdAt: Date = t0) -> FactorRecord {
        FactorRecord(
            userID: user.id, friendlyName: name, status: status, sealedSecret: "v1:sealed-\(name)", createdAt: createdAt, updatedAt: createdAt)
    }

    /// Applies `changes` to `user`'s factors and returns the state the plan saw.
    @discardableResult
    func change(
        _ store: any AuthStore, _ user: UserRecord, challenge: UUID? = nil, session: UUID? = nil, _ changes: [FactorChange]
    ) async throws -> FactorState {
        try await store.changeFactors(of: user.id, challengeID: challenge, sessionID: session) { state in
            FactorPlan(changes: changes, result: state)
        }
    }

    @Test(
        "factors and challenges round-trip, every field intact; the plan sees the user's factors, the challenge and the session",
        arguments: StoreKind.available)
    func factorRoundTrip(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (user, session, _) = try await signedIn(store, email: "mfa@example.com")
            var first = Self.factor(user, name: "one")
            first.lastChallengedAt = t0.addingTimeInterval(5)
            first.lastUsedStep = 63_333_333
            let second = Self.factor(user, name: "two", status: .verified, createdAt: t0.addingTimeInterval(1))
            let challenge = ChallengeRecord(factorID: first.id, createdAt: t0, ipAddress: "192.0.2.1")
            let (other, _, _) = try await signedIn(store, email: "other@example.com")
            try await change(
                store, user, [.insertFactor(second), .insertFactor(first), .insertChallenge(challenge), .audit(Self.audit(.factorInProgress, user))])
            try await change(store, other, [.insertFactor(Self.factor(other, name: "one"))])

            #expect(try await store.factors(userID: user.id) == [first, second], "oldest first")
            #expect(try await store.factors(userID: UUID()).isEmpty)
            let state = try await change(store, user, challenge: challenge.id, session: session.id, [])
            #expect(state.factors == [first, second])
            #expect(state.challenge == challenge)
            #expect(state.session == session)
            #expect(state.session?.aal == .aal1)
            let missing = try await change(store, user, challenge: UUID(), session: UUID(), [])
            #expect(missing.challenge == nil && missing.session == nil)

            var verified = first
            verified.status = .verified
            verified.friendlyName = "renamed"
            verified.updatedAt = t0.addingTimeInterval(9)
            verified.lastUsedStep = 63_333_334
            try await change(store, user, [.updateFactor(verified), .markChallengeVerified(id: challenge.id, at: t0.addingTimeInterval(9))])
            let after = try await change(store, user, challenge: challenge.id, [])
            #expect(after.factors.first == verified)
            #expect(after.challenge?.verifiedAt == t0.addingTimeInterval(9))
            try await change(store, user, [.deleteChallenge(id: challenge.id)])
            #expect(try await change(store, user, challenge: challenge.id, []).challenge == nil)
            #expect(try await store.auditEntries(offset: 0, limit: 10).map(\.action) == [.factorInProgress])
        }
    }

    @Test(
        "a WebAuthn factor's credential and its challenges' ceremonies round-trip, and the credential changes with the factor",
        arguments: StoreKind.available)
    func webAuthnFactorRoundTrip(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (user, _, _) = try await signedIn(store, email: "key@example.com")
            var factor = FactorRecord(
                userID: user.id, friendlyName: "key", factorType: FactorRecord.webAuthnType, sealedSecret: "", createdAt: t0, updatedAt: t0)
            let create = ChallengeRecord(
                factorID: factor.id, createdAt: t0, ipAddress: "192.0.2.1",
                webAuthn: FactorWebAuthnChallenge(ceremony: .create, challenge: Array(0..<32)))
            try await change(store, user, [.insertFactor(factor), .insertChallenge(create)])
            var state = try await change(store, user, challenge: create.id, [])
            #expect(state.factors == [factor] && state.factors.first?.webAuthnCredential == nil)
            #expect(state.challenge == create)

            factor.status = .verified
            factor.webAuthnCredential = FactorCredential(
                credentialID: Array(repeating: 0xAB, count: 64), publicKey: [0xA5, 0x01, 0x02, 0x03, 0x26], attestationType: "none",
                aaguid: UUID(), signCount: 7, backupEligible: true, backedUp: false, transports: ["usb", "nfc"])
            let request = ChallengeRecord(
                factorID: factor.id, createdAt: t0.addingTimeInterval(1), ipAddress: "192.0.2.1",
                webAuthn: FactorWebAuthnChallenge(ceremony: .request, challenge: Array(repeating: 0xFF, count: 32)))
            try await change(store, user, [.updateFactor(factor), .insertChallenge(request)])
            state = try await change(store, user, challenge: request.id, [])
            #expect(state.factors == [factor])
            #expect(state.challenge == request)
            #expect(try await store.factors(userID: user.id).first?.webAuthnCredential?.signCount == 7)
        }
    }

    @Test("a phone factor's number and its challenges' code hashes round-trip; a TOTP challenge has none", arguments: StoreKind.available)
    func phoneFactorRoundTrip(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (user, _, _) = try await signedIn(store, email: "phone-factor@example.com")
            var factor = FactorRecord(
                userID: user.id, friendlyName: "phone", factorType: FactorRecord.phoneType, sealedSecret: "", createdAt: t0, updatedAt: t0,
                phone: "15555550100")
            let challenge = ChallengeRecord(factorID: factor.id, createdAt: t0, ipAddress: "192.0.2.1", codeHash: String(repeating: "ab", count: 32))
            try await change(store, user, [.insertFactor(factor), .insertChallenge(challenge)])
            var state = try await change(store, user, challenge: challenge.id, [])
            #expect(state.factors == [factor] && state.factors.first?.phone == "15555550100")
            #expect(state.challenge == challenge && state.challenge?.codeHash == String(repeating: "ab", count: 32))

            factor.status = .verified
            factor.lastChallengedAt = t0.addingTimeInterval(1)
            try await change(store, user, [.updateFactor(factor)])
            state = try await change(store, user, [])
            #expect(state.factors == [factor], "the number stays with the factor")
            let totp = Self.factor(user, name: "app")
            let plain = ChallengeRecord(factorID: totp.id, createdAt: t0, ipAddress: "192.0.2.1")
            try await change(store, user, [.insertFactor(totp), .insertChallenge(plain)])
            #expect(try await change(store, user, challenge: plain.id, []).challenge?.codeHash == nil)
            #expect(try await store.factors(userID: user.id).first { $0.id == totp.id }?.phone == nil)
        }
    }

    @Test(
        "raising a session stores its level, factor and methods; a new refresh token replaces every old one; lower sessions end",
        arguments: StoreKind.available)
    func raiseSession(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (user, session, oldToken) = try await signedIn(store, email: "raise@example.com")
            let (_, lower, _) = try await signedIn(store, email: "raise@example.com")
            let (stranger, strangerSession, _) = try await signedIn(store, email: "stranger@example.com")
            let factor = Self.factor(user, name: "phone", status: .verified)
            var raised = session
            raised.aal = .aal2
            raised.factorID = factor.id
            raised.verifiedMethods = [AuthenticationMethodReference(method: "totp", timestamp: Int(t0.timeIntervalSince1970) + 60)]
            raised.updatedAt = t0.addingTimeInterval(60)
            let newToken = OpaqueTokens.random()
            try await change(
                store, user, session: session.id,
                [
                    .insertFactor(factor), .updateSessionAssurance(raised),
                    .replaceRefreshToken(
                        RefreshTokenRecord(hash: OpaqueTokens.hash(newToken), of: raised, parentHash: nil, createdAt: t0.addingTimeInterval(60))),
                    .endLowerAssuranceSessions(userID: user.id, except: session.id),
                ])
            #expect(try await store.sessionWithUser(id: session.id)?.session == raised)
            #expect(try await store.sessionWithUser(id: lower.id) == nil, "the user's aal1 session ended")
            #expect(try await store.sessionWithUser(id: strangerSession.id) != nil, "other users' sessions stay")
            _ = stranger
            // The new token renews the raised session; the old one is spent and not its parent.
            guard case .issued(let renewed, _, _) = try await rotate(newToken, in: store) else { throw TestFailure("new token refused") }
            #expect(renewed.aal == .aal2 && renewed.verifiedMethods == raised.verifiedMethods && renewed.factorID == factor.id)
            #expect(try await rotate(oldToken, at: t0.addingTimeInterval(600), in: store) == .refused(.refreshTokenAlreadyUsed))
        }
    }

    @Test("deleting a factor lowers the sessions it raised to aal1 and deletes its challenges", arguments: StoreKind.available)
    func deleteFactor(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (user, session, _) = try await signedIn(store, email: "lower@example.com")
            let factor = Self.factor(user, name: "phone", status: .verified)
            let challenge = ChallengeRecord(factorID: factor.id, createdAt: t0, ipAddress: "127.0.0.1")
            var raised = session
            raised.aal = .aal2
            raised.factorID = factor.id
            raised.verifiedMethods = [AuthenticationMethodReference(method: "totp", timestamp: 5)]
            try await change(store, user, [.insertFactor(factor), .insertChallenge(challenge), .updateSessionAssurance(raised)])
            try await change(store, user, [.deleteFactor(id: factor.id)])
            let lowered = try #require(try await store.sessionWithUser(id: session.id)?.session)
            #expect(lowered.aal == .aal1 && lowered.factorID == nil && lowered.verifiedMethods.isEmpty)
            #expect(try await store.factors(userID: user.id).isEmpty)
            #expect(try await change(store, user, challenge: challenge.id, []).challenge == nil)
            // Deleting the user deletes their factors.
            try await change(store, user, [.insertFactor(Self.factor(user, name: "again"))])
            _ = try await store.deleteUser(id: user.id, audit: nil)
            #expect(try await store.factors(userID: user.id).isEmpty)
        }
    }

    @Test("the cleanup deletes expired unverified factors and old challenges, nothing verified or recent", arguments: StoreKind.available)
    func cleanupFactors(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let user = Self.user("cleanup@example.com")
            try await store.insertUser(user, audit: nil)
            let old = Self.factor(user, name: "old", createdAt: t0.addingTimeInterval(-1000))
            var challenged = Self.factor(user, name: "challenged", createdAt: t0.addingTimeInterval(-1000))
            challenged.lastChallengedAt = t0.addingTimeInterval(-10)
            let verified = Self.factor(user, name: "verified", status: .verified, createdAt: t0.addingTimeInterval(-1000))
            let recent = Self.factor(user, name: "recent", createdAt: t0)
            let oldChallenge = ChallengeRecord(factorID: verified.id, createdAt: t0.addingTimeInterval(-5000), ipAddress: "127.0.0.1")
            let newChallenge = ChallengeRecord(factorID: challenged.id, createdAt: t0.addingTimeInterval(-10), ipAddress: "127.0.0.1")
            try await change(
                store, user,
                [
                    .insertFactor(old), .insertFactor(challenged), .insertFactor(verified), .insertFactor(recent),
                    .insertChallenge(oldChallenge), .insertChallenge(newChallenge),
                ])
            let cutoffs = StaleRowCutoffs(
                refreshTokensSpentBefore: t0, sessionsEndedBefore: t0, sessionsRefreshedBefore: nil, oneTimeTokensCreatedBefore: t0,
                flowStatesCreatedBefore: t0, auditEntriesCreatedBefore: t0, unverifiedFactorsCreatedBefore: t0.addingTimeInterval(-300),
                factorsChallengedBefore: t0.addingTimeInterval(-300), challengesCreatedBefore: t0.addingTimeInterval(-3900))
            let counts = try await store.deleteStaleRows(cutoffs, limit: 100)
            #expect(counts.factors == 1 && counts.challenges == 1)
            #expect(Set(try await store.factors(userID: user.id).map(\.friendlyName)) == ["challenged", "verified", "recent"])
            #expect(try await change(store, user, challenge: newChallenge.id, []).challenge == newChallenge)
        }
    }
}
