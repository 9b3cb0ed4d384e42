import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

@Suite("Failure policy")
struct FailurePolicyTests {
    @Test(
        "Transient failures keep the session; retries back off on the clock; the next success heals",
        arguments: [
            BackendError.transport(.offline), .transport(.timedOut), .transport(.cancelled),
            .server(status: 503, code: nil, message: nil, retryAfter: nil),
            .server(status: 429, code: "over_request_rate_limit", message: nil, retryAfter: 10),
            .server(status: 500, code: "refresh_token_not_found", message: nil, retryAfter: nil),
        ])
    func transientKeepsSession(error: BackendError) async throws {
        let harness = Harness { $0.initialRetryDelay = 2 }
        _ = try await harness.seed(age: 3000)  // valid for 10 more minutes; proactive refresh due
        let events = EventRecorder(harness.manager)
        harness.backend.failNextRefreshes(error, error)
        #expect(await harness.manager.restore() == .signedIn(try #require(await harness.manager.currentSession)))
        // The proactive refresh is due at once (600 s left < 300 s margin? no: due at 300 s left).
        harness.clock.advance(by: 300)
        #expect(await eventually { harness.backend.refreshCalls == 1 })
        #expect(await events.wait { $0.contains(.refreshFailed(AuthFailure(error))) })
        #expect(await harness.manager.state.isSignedIn)
        #expect(try await harness.stored() != nil)
        // First retry after 2 s fails again, the second after 4 s succeeds.
        #expect(await eventually { harness.clock.sleeperCount >= 1 })
        harness.clock.advance(by: 2)
        #expect(await eventually { harness.backend.refreshCalls == 2 })
        #expect(await eventually { harness.clock.sleeperCount >= 1 })
        harness.clock.advance(by: 1)
        try await Task.sleep(nanoseconds: 20_000_000)
        #expect(harness.backend.refreshCalls == 2, "backoff doubled to 4 s")
        harness.clock.advance(by: 3)
        #expect(await eventually { harness.backend.refreshCalls == 3 })
        #expect(await events.wait { $0.contains { $0.isTokenRefreshed } })
        #expect(await harness.manager.currentSession?.accessToken == "access-1")
    }

    @Test("A transient failure with a still-valid token returns the current session")
    func transientWithValidToken() async throws {
        let harness = Harness { $0.automaticRefresh = false }
        _ = try await harness.seed(age: 3570)  // 30 s left
        await harness.manager.restore()
        harness.backend.failNextRefreshes(.transport(.offline))
        #expect(try await harness.manager.session(minTTL: 60).accessToken == "access-0")
    }

    @Test("Offline with an expired token: a network failure, session kept")
    func transientWithExpiredToken() async throws {
        let harness = Harness { $0.automaticRefresh = false }
        _ = try await harness.seed(age: 3000)
        await harness.manager.restore()
        harness.clock.advance(by: 700)
        harness.backend.failNextRefreshes(.transport(.offline))
        await #expect(throws: AuthFailure(.network, code: "offline")) { try await harness.manager.session() }
        #expect(await harness.manager.state.isSignedIn)
        #expect(try await harness.manager.session().accessToken == "access-1")
    }

    @Test(
        "Definitive answers sign out with the reason, wipe the store, run cleanup",
        arguments: [
            ("refresh_token_not_found", SignOutReason.sessionRevoked(code: "refresh_token_not_found")),
            ("refresh_token_already_used", .sessionRevoked(code: "refresh_token_already_used")),
            ("session_not_found", .sessionRevoked(code: "session_not_found")),
            ("session_expired", .sessionRevoked(code: "session_expired")),
            ("user_banned", .userBanned),
            ("user_not_found", .userDeleted),
        ])
    func definitiveSignsOut(code: String, reason: SignOutReason) async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 3600)
        let cleaned = LockedValue(false)
        await harness.manager.addCleanupStep("cache") { cleaned.withLock { $0 = true } }
        let events = EventRecorder(harness.manager)
        harness.backend.failNextRefreshes(.server(status: 400, code: code, message: nil, retryAfter: nil))
        #expect(await harness.manager.restore() == .signedOut(reason))
        #expect(try await harness.stored() == nil)
        #expect(cleaned.withLock { $0 })
        #expect(await events.wait { $0.contains(.signedOut(reason)) })
        await #expect(throws: AuthFailure(.notSignedIn)) { try await harness.manager.session() }
    }

    @Test("An unknown 4xx keeps the session (only known codes sign out)")
    func unknownClientError() async throws {
        let harness = Harness { $0.automaticRefresh = false }
        _ = try await harness.seed(age: 3600)
        harness.backend.failNextRefreshes(.server(status: 400, code: "something_new", message: nil, retryAfter: nil))
        let state = await harness.manager.restore()
        #expect(state.isSignedIn, "\(state)")
        #expect(try await harness.stored() != nil)
    }

    @Test("A cross-process lock that cannot be taken keeps the session and says so by name")
    func lockUnavailable() async throws {
        let harness = Harness {
            $0.automaticRefresh = false
            $0.crossProcessLockURL = URL(fileURLWithPath: "/dev/null/refresh.lock")  // no directory can be made there
        }
        let seeded = try await harness.seed(age: 3600)
        await harness.manager.restore()
        await #expect(throws: AuthFailure(.network, code: "lock_unavailable")) { try await harness.manager.refresh() }
        #expect(harness.backend.refreshCalls == 0, "nothing is sent without the lock")
        #expect(await harness.manager.state.isSignedIn)
        #expect(try await harness.stored()?.session.refreshToken == seeded.refreshToken)
    }

    @Test("Sign-out while a refresh is in flight leaves no ghost session behind")
    func signOutDuringRefresh() async throws {
        let harness = Harness { $0.automaticRefresh = false }
        _ = try await harness.seed(age: 3570)
        await harness.manager.restore()
        harness.backend.holdRefreshes()
        let caller = Task { try await harness.manager.session(minTTL: 60) }
        #expect(await eventually { harness.backend.pendingRefreshCount == 1 })
        let report = await harness.manager.signOut()
        #expect(report.storageError == nil)
        harness.backend.releaseRefreshes()
        _ = try? await caller.value
        try await Task.sleep(nanoseconds: 20_000_000)
        #expect(try await harness.stored() == nil, "the late refresh must not write the session back")
        #expect(await harness.manager.state == .signedOut(.userInitiated))
        #expect(await harness.manager.currentSession == nil)
    }
}
