import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

@Suite("Launch (restore)")
struct RestoreTests {
    @Test("Valid stored token: signed in with no network call")
    func validToken() async throws {
        let harness = Harness()
        let seeded = try await harness.seed(age: 600)
        #expect(await harness.manager.restore() == .signedIn(seeded))
        #expect(harness.backend.refreshCalls == 0)
    }

    @Test("Nothing stored: signed out, no session")
    func nothingStored() async throws {
        let harness = Harness()
        #expect(await harness.manager.restore() == .signedOut(.noSession))
    }

    @Test("Expired token: exactly one refresh, signed in")
    func expiredToken() async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 7200)
        let state = await harness.manager.restore()
        #expect(state.session?.accessToken == "access-1")
        #expect(harness.backend.refreshCalls == 1)
    }

    @Test("A locked store is reported, nothing is wiped, and becoming active after unlock signs in")
    func lockedStore() async throws {
        let harness = Harness()
        let seeded = try await harness.seed(age: 60)
        let events = EventRecorder(harness.manager)
        await harness.store.setLoadError(.locked)
        #expect(await harness.manager.restore() == .signedOut(.storageFailure(.locked)))
        #expect(await events.wait { $0.contains(.storageFailed(.locked)) })
        #expect(await harness.store.deletes == 0, "a failed read is never a sign-out")
        #expect(SignOutReason.storageFailure(.locked).credentialsKept)
        await harness.store.setLoadError(nil)
        await harness.manager.setPhase(.background)
        await harness.manager.setPhase(.active)
        #expect(await harness.manager.state == .signedIn(seeded))
    }

    @Test("A corrupted store: signed out with a storage error, no crash")
    func corruptedStore() async throws {
        let harness = Harness()
        try await harness.store.save(Data("not json at all".utf8), key: "latchkey.session")
        let state = await harness.manager.restore()
        guard case .signedOut(.storageFailure(.corrupted)) = state else {
            Issue.record("expected a corrupted-storage sign-out, got \(state)")
            return
        }
    }

    @Test("Reinstall: marker missing and credentials present → wiped, signed out (staleInstall)")
    func staleInstall() async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 60)
        await harness.marker.clear()
        #expect(await harness.manager.restore() == .signedOut(.staleInstall))
        #expect(try await harness.stored() == nil)
        #expect(try await harness.marker.isSet())
        #expect(harness.backend.refreshCalls == 0)
    }

    @Test("First install: marker missing, nothing stored → no session (not stale)")
    func firstInstall() async throws {
        let harness = Harness()
        await harness.marker.clear()
        #expect(await harness.manager.restore() == .signedOut(.noSession))
        #expect(try await harness.marker.isSet())
    }

    @Test("Offline at launch within the grace period: signed in offline, then online when the retry succeeds")
    func offlineWithinGrace() async throws {
        let harness = Harness { $0.initialRetryDelay = 5 }
        _ = try await harness.seed(age: 3 * 86_400)  // last contact 3 days ago
        harness.backend.failNextRefreshes(.transport(.offline))
        let state = await harness.manager.restore()
        guard case .signedInOffline(let session) = state else {
            Issue.record("expected signed in offline, got \(state)")
            return
        }
        #expect(session.refreshToken == "refresh-0")
        #expect(await eventually { harness.clock.sleeperCount >= 1 })
        harness.clock.advance(by: 5)
        #expect(await eventually { if case .signedIn = await harness.manager.state { true } else { false } })
    }

    @Test("Offline beyond the grace period: signed out, credentials kept for a later restore")
    func offlineBeyondGrace() async throws {
        let harness = Harness { $0.automaticRefresh = false }
        _ = try await harness.seed(age: 8 * 86_400)
        harness.backend.failNextRefreshes(.transport(.offline))
        #expect(await harness.manager.restore() == .signedOut(.offlineGracePeriodExceeded))
        #expect(try await harness.stored() != nil)
        #expect(await harness.manager.restore().isSignedIn, "online again: signed in")
    }

    @Test("A hanging server: launch decides at the timeout, the refresh lands later")
    func launchTimeout() async throws {
        let harness = Harness { $0.launchTimeout = 10 }
        _ = try await harness.seed(age: 7200)
        harness.backend.holdRefreshes()
        let launch = Task { await harness.manager.restore() }
        guard await eventually(timeout: 120, { harness.backend.pendingRefreshCount == 1 && harness.clock.sleeperCount >= 1 }) else {
            // Never wait on the launch after this: nothing would end it.
            Issue.record("the launch never reached its timeout with the refresh held")
            harness.backend.releaseRefreshes()
            return
        }
        harness.clock.advance(by: 10)
        let state = await launch.value
        guard case .signedInOffline = state else {
            Issue.record("expected signed in offline at the timeout, got \(state)")
            return
        }
        harness.backend.releaseRefreshes()
        #expect(await eventually { await harness.manager.state.session?.accessToken == "access-1" })
        if case .signedIn = await harness.manager.state {} else { Issue.record("expected online after the late refresh") }
    }

    @Test("Maximum session age: warning first, then signed out")
    func maximumAge() async throws {
        let harness = Harness {
            $0.maximumSessionAge = 30 * 86_400
            $0.sessionExpiryWarning = 600
            $0.automaticRefresh = false
        }
        _ = try await harness.seed(age: 60)
        let events = EventRecorder(harness.manager)
        #expect(await harness.manager.restore().isSignedIn)
        #expect(await eventually { harness.clock.sleeperCount >= 1 })
        harness.clock.advance(by: 30 * 86_400 - 60 - 600)
        #expect(await events.wait { $0.contains(.sessionExpiring(in: 600)) })
        #expect(await eventually { harness.clock.sleeperCount >= 1 })
        harness.clock.advance(by: 600)
        #expect(await events.wait { $0.contains(.signedOut(.maximumSessionAgeExceeded)) })
        #expect(try await harness.stored() == nil)

        // And a launch past the maximum age signs out at once.
        let late = Harness { $0.maximumSessionAge = 86_400 }
        _ = try await late.seed(age: 2 * 86_400)
        #expect(await late.manager.restore() == .signedOut(.maximumSessionAgeExceeded))
        #expect(late.backend.refreshCalls == 0)
    }

    @Test("Concurrent restores share one launch")
    func concurrentRestores() async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 7200)
        async let first = harness.manager.restore()
        async let second = harness.manager.restore()
        let states = await [first, second]
        #expect(states[0] == states[1])
        #expect(harness.backend.refreshCalls == 1)
    }

    @Test("A cancelled first caller does not cut the shared restore short")
    func cancelledFirstCaller() async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 7200)
        harness.backend.holdRefreshes()
        let first = Task { await harness.manager.restore() }
        #expect(await eventually { harness.backend.pendingRefreshCount == 1 })
        let second = Task { await harness.manager.restore() }
        #expect(await eventually { await harness.manager.restoreWaiters?.count == 1 })
        first.cancel()
        harness.backend.releaseRefreshes()
        let states = await [first.value, second.value]
        #expect(states[0].isSignedIn, "the refresh finished although its first caller was cancelled")
        #expect(states[0] == states[1])
        #expect(harness.backend.refreshCalls == 1)
        #expect(await harness.manager.state == states[0])
    }
}
