import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

@Suite("Single-flight refresh")
struct SingleFlightRefreshTests {
    @Test("1,000 concurrent callers with an expiring token cause exactly one refresh")
    func thousandCallers() async throws {
        let harness = Harness { $0.automaticRefresh = false }
        _ = try await harness.seed(age: 3590)  // 10 s left, minTTL 60 → refresh needed
        #expect(await harness.manager.restore().isSignedIn)
        harness.backend.holdRefreshes()
        let tokens = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<1000 {
                group.addTask { try await harness.manager.session(minTTL: 60).accessToken }
            }
            #expect(await eventually { harness.backend.pendingRefreshCount == 1 })
            harness.backend.releaseRefreshes()
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(harness.backend.refreshCalls == 1)
        #expect(tokens.count == 1, "every caller got the same fresh session")
        #expect(tokens.first != "access-0")
        #expect(try await harness.stored()?.session.accessToken == tokens.first)
    }

    @Test("A fresh token is returned without a refresh")
    func noRefreshWhenFresh() async throws {
        let harness = Harness()
        let seeded = try await harness.seed(age: 60)
        await harness.manager.restore()
        #expect(try await harness.manager.session(minTTL: 60).accessToken == seeded.accessToken)
        #expect(harness.backend.refreshCalls == 0)
    }

    @Test("minTTL is capped at half the token lifetime: 60-second tokens never cause a refresh storm")
    func minTTLCap() async throws {
        let harness = Harness { $0.automaticRefresh = false }
        _ = try await harness.seed(age: 20, expiresIn: 60)  // 40 s left of 60
        await harness.manager.restore()
        _ = try await harness.manager.session(minTTL: 300)
        #expect(harness.backend.refreshCalls == 0, "40 s left > min(300, 30)")
        harness.clock.advance(by: 15)  // 25 s left < 30
        _ = try await harness.manager.session(minTTL: 300)
        #expect(harness.backend.refreshCalls == 1)
        _ = try await harness.manager.session(minTTL: 300)
        #expect(harness.backend.refreshCalls == 1, "the new 60 s token satisfies the capped minTTL")
    }

    @Test("The rotated session is in the store before any caller sees it")
    func writtenBeforeReturned() async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 3600)
        await harness.manager.restore()
        let fresh = try await harness.manager.session()
        #expect(try await harness.stored()?.session.refreshToken == fresh.refreshToken)
    }

    @Test("If storing the rotated session fails, it is still used and the failure is reported")
    func storeWriteFails() async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 3600)
        let events = EventRecorder(harness.manager)
        await harness.store.setSaveError(.unavailable(reason: "disk full"))
        let state = await harness.manager.restore()
        #expect(state.isSignedIn)
        let fresh = try await harness.manager.session()
        #expect(fresh.accessToken == "access-1")
        #expect(await events.wait { $0.contains(.storageFailed(.unavailable(reason: "disk full"))) })
        #expect(try await harness.stored()?.session.refreshToken == "refresh-0", "old session still on disk")
    }

    @Test("A caller cancelled while waiting does not cancel the shared refresh")
    func cancelledCaller() async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 3600)
        harness.backend.holdRefreshes()
        let restore = Task { await harness.manager.restore() }
        #expect(await eventually { harness.backend.pendingRefreshCount == 1 })
        let impatient = Task { try await harness.manager.session() }
        impatient.cancel()
        harness.backend.releaseRefreshes()
        #expect(await restore.value.isSignedIn)
        _ = try? await impatient.value
        #expect(try await harness.manager.session().accessToken == "access-1")
        #expect(harness.backend.refreshCalls == 1)
    }
}
