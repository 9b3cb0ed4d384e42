import Foundation
import Testing

@testable import LatchkeyServer

/// The cleanup's deletes and the atomic sign-up, against every store.
extension AuthStoreConformanceTests {
    @Test("stale rows go, in batches; the active token, its parent and everything recent stay", arguments: StoreKind.available)
    func deleteStaleRows(kind: StoreKind) async throws {
        try await kind.withStore { store in
            // A live session rotated three times: t0, t1 spent; t2 spent and parent of the active t3.
            let (user, live, first) = try await signedIn(store, email: "live@example.com")
            var chain = [first]
            for _ in 0..<3 {
                guard case .issued(_, _, let next) = try await rotate(chain.last!, in: store) else { throw TestFailure("rotation refused") }
                chain.append(next)
            }
            // A session past its timebox long ago, and one that was signed out.
            let (_, expired, expiredToken) = try await signedIn(store, email: "expired@example.com", notAfter: t0.addingTimeInterval(-1))
            let (ended, _, endedToken) = try await signedIn(store, email: "ended@example.com")
            try await store.endSessions(userID: ended.id, except: nil, only: nil, audit: nil)
            // Old and new email links, PKCE flows and audit entries.
            let other = Self.user("links@example.com")
            try await store.insertUser(other, audit: nil)
            let oldLink = OneTimeToken(
                userID: user.id, kind: .recovery, tokenHash: OpaqueTokens.hash("old-link"), relatesTo: user.email,
                createdAt: t0.addingTimeInterval(-100))
            let newLink = OneTimeToken(
                userID: other.id, kind: .recovery, tokenHash: OpaqueTokens.hash("new-link"), relatesTo: other.email, createdAt: t0)
            try await store.saveOneTimeToken(oldLink, updatingUser: nil, audit: nil)
            try await store.saveOneTimeToken(newLink, updatingUser: nil, audit: nil)
            let oldFlow = FlowState(
                userID: user.id, authenticationMethod: "recovery", codeChallenge: "c", codeChallengeMethod: .plain,
                authCodeHash: "old-code", createdAt: t0.addingTimeInterval(-100))
            let newFlow = FlowState(
                userID: user.id, authenticationMethod: "recovery", codeChallenge: "c", codeChallengeMethod: .plain,
                authCodeHash: "new-code", createdAt: t0)
            try await store.saveFlowState(oldFlow)
            try await store.saveFlowState(newFlow)
            for index in 0..<5 { try await store.appendAudit(Self.audit(.login, user, at: t0.addingTimeInterval(Double(index - 100)))) }
            try await store.appendAudit(Self.audit(.logout, user, at: t0))

            let cutoffs = StaleRowCutoffs(
                refreshTokensSpentBefore: t0.addingTimeInterval(1), sessionsEndedBefore: t0, sessionsRefreshedBefore: nil,
                oneTimeTokensCreatedBefore: t0.addingTimeInterval(-50), flowStatesCreatedBefore: t0.addingTimeInterval(-50),
                auditEntriesCreatedBefore: t0.addingTimeInterval(-50))
            // Batches of 2: the first fills some kinds, later ones finish them.
            var total = StaleRowCounts()
            var batches = 0
            while true {
                let batch = try await store.deleteStaleRows(cutoffs, limit: 2)
                total = total + batch
                batches += 1
                if !batch.filled(2) { break }
            }
            #expect(batches > 1)
            #expect(total.sessions == 1, "the expired session")
            // t0, t1 (spent, not parents of the active one), the expired and the ended session's tokens.
            #expect(total.refreshTokens == 4)
            #expect(total.oneTimeTokens == 1)
            #expect(total.flowStates == 1)
            #expect(total.auditEntries == 5)
            #expect(try await store.deleteStaleRows(cutoffs, limit: 2) == StaleRowCounts(), "nothing left")

            // What stays behaves as before; what went answers refresh_token_not_found without revoking.
            #expect(try await store.sessionWithUser(id: expired.id) == nil)
            #expect(try await store.sessionID(ofRefreshTokenHash: OpaqueTokens.hash(expiredToken)) == nil)
            #expect(try await store.sessionID(ofRefreshTokenHash: OpaqueTokens.hash(endedToken)) == nil)
            #expect(try await rotate(chain[0], in: store) == .refused(.refreshTokenNotFound))
            guard case .issued(_, _, let again) = try await rotate(chain[2], at: t0.addingTimeInterval(3600), in: store) else {
                throw TestFailure("the parent of the active token no longer yields it")
            }
            #expect(again == chain[3])
            #expect(try await store.sessionWithUser(id: live.id) != nil)
            #expect(try await store.consumeOneTimeToken(hash: oldLink.tokenHash, kinds: [.recovery]) == nil)
            #expect(try await store.consumeOneTimeToken(hash: newLink.tokenHash, kinds: [.recovery]) != nil)
            #expect(try await store.consumeFlowState(authCodeHash: "old-code") == nil)
            #expect(try await store.consumeFlowState(authCodeHash: "new-code") != nil)
            #expect(try await store.auditEntries(offset: 0, limit: 100).count == 4, "the logout and the three refreshes")
        }
    }

    @Test("sessions that went longer than the inactivity timeout go", arguments: StoreKind.available)
    func deleteInactiveSessions(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let (_, idle, _) = try await signedIn(store, email: "idle@example.com")
            let far = t0.addingTimeInterval(-1_000_000)
            var cutoffs = StaleRowCutoffs(
                refreshTokensSpentBefore: far, sessionsEndedBefore: far, sessionsRefreshedBefore: nil,
                oneTimeTokensCreatedBefore: far, flowStatesCreatedBefore: far, auditEntriesCreatedBefore: far)
            #expect(try await store.deleteStaleRows(cutoffs, limit: 10).sessions == 0)
            cutoffs.sessionsRefreshedBefore = t0
            #expect(try await store.deleteStaleRows(cutoffs, limit: 10).sessions == 0, "refreshed at the cutoff, not before")
            cutoffs.sessionsRefreshedBefore = t0.addingTimeInterval(1)
            let counts = try await store.deleteStaleRows(cutoffs, limit: 10)
            #expect(counts.sessions == 1)
            #expect(counts.refreshTokens == 1, "its token goes with it")
            #expect(try await store.sessionWithUser(id: idle.id) == nil)
        }
    }

    @Test("cleanups running at once delete each row once and never fail", arguments: StoreKind.available)
    func concurrentCleanups(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let user = Self.user("many@example.com")
            try await store.insertUser(user, audit: nil)
            for index in 0..<200 { try await store.appendAudit(Self.audit(.login, user, at: t0.addingTimeInterval(Double(-1000 - index)))) }
            let cutoffs = StaleRowCutoffs(
                refreshTokensSpentBefore: t0, sessionsEndedBefore: t0, sessionsRefreshedBefore: nil, oneTimeTokensCreatedBefore: t0,
                flowStatesCreatedBefore: t0, auditEntriesCreatedBefore: t0)
            let deleted = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<4 {
                    group.addTask {
                        var sum = 0
                        while true {
                            let batch = try await store.deleteStaleRows(cutoffs, limit: 10)
                            sum += batch.auditEntries
                            if batch.total == 0 { return sum }
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(deleted == 200)
            #expect(try await store.auditEntries(offset: 0, limit: 10).isEmpty)
        }
    }

    @Test("a new account is stored with its session or its confirmation link, or not at all", arguments: StoreKind.available)
    func insertUserWithStart(kind: StoreKind) async throws {
        try await kind.withStore { store in
            var user = Self.user("atomic@example.com")
            user.lastSignInAt = t0
            let session = SessionRecord(userID: user.id, createdAt: t0, updatedAt: t0, refreshedAt: t0, notAfter: nil, authMethod: "password")
            try await store.insertUser(
                user, audit: Self.audit(.userSignedUp, user),
                start: .session(session, refreshTokenHash: OpaqueTokens.hash("first"), audit: Self.audit(.login, user)))
            #expect(try await store.sessionWithUser(id: session.id)?.user == user)
            #expect(try await store.sessionID(ofRefreshTokenHash: OpaqueTokens.hash("first")) == session.id)
            #expect(try await store.auditEntries(offset: 0, limit: 10).map(\.action) == [.login, .userSignedUp])

            var pending = Self.user("pending@example.com")
            pending.confirmationSentAt = t0
            let link = OneTimeToken(
                userID: pending.id, kind: .confirmation, tokenHash: OpaqueTokens.hash("confirm"), relatesTo: pending.email, createdAt: t0)
            let flow = FlowState(
                userID: pending.id, authenticationMethod: "email/signup", codeChallenge: "c", codeChallengeMethod: .s256, createdAt: t0)
            try await store.insertUser(pending, audit: nil, start: .confirmation(link, flow: flow, audit: nil))
            #expect(try await store.user(id: pending.id) == pending)
            #expect(
                try await store.issueAuthCode(userID: pending.id, authenticationMethod: "email/signup", authCodeHash: "code", issuedAt: t0)?.id
                    == flow.id)
            #expect(try await store.consumeOneTimeToken(hash: link.tokenHash, kinds: [.confirmation])?.user == pending)

            // The second step fails (its PKCE flow's id is taken): the account is not left behind.
            let orphan = Self.user("orphan@example.com")
            let taken = FlowState(userID: user.id, authenticationMethod: "recovery", codeChallenge: "c", codeChallengeMethod: .s256, createdAt: t0)
            try await store.saveFlowState(taken)
            var clash = taken
            clash.userID = orphan.id
            let orphanLink = OneTimeToken(
                userID: orphan.id, kind: .confirmation, tokenHash: OpaqueTokens.hash("orphan"), relatesTo: orphan.email, createdAt: t0)
            await #expect(throws: (any Error).self) {
                try await store.insertUser(
                    orphan, audit: Self.audit(.userSignedUp, orphan), start: .confirmation(orphanLink, flow: clash, audit: nil))
            }
            #expect(try await store.user(id: orphan.id) == nil)
            #expect(try await store.user(email: orphan.email) == nil)
            await #expect(throws: StoreError.duplicateEmail) {
                try await store.insertUser(Self.user("atomic@example.com"), audit: nil, start: .confirmation(link, flow: nil, audit: nil))
            }
        }
    }
}
