import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

@Suite("App lifecycle and proactive refresh")
struct LifecycleTests {
    @Test("Proactive refresh fires a margin before expiry while active")
    func proactive() async throws {
        let harness = Harness { $0.refreshMargin = 300 }
        _ = try await harness.seed(age: 0)
        await harness.manager.restore()
        #expect(await eventually { harness.clock.sleeperCount == 1 })
        harness.clock.advance(by: 3299)
        try await Task.sleep(nanoseconds: 20_000_000)
        #expect(harness.backend.refreshCalls == 0)
        harness.clock.advance(by: 1)
        #expect(await eventually { harness.backend.refreshCalls == 1 })
        #expect(await eventually { harness.clock.sleeperCount == 1 }, "re-armed for the new token")
    }

    @Test("In the background nothing refreshes; back after 1 s: no refresh")
    func shortBackground() async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 0)
        await harness.manager.restore()
        await harness.manager.setPhase(.background)
        #expect(await eventually { harness.clock.sleeperCount == 0 })
        harness.clock.advance(by: 1)
        await harness.manager.setPhase(.active)
        try await Task.sleep(nanoseconds: 20_000_000)
        #expect(harness.backend.refreshCalls == 0)
        #expect(harness.backend.state.withLock { $0.userCalls } == 0)
    }

    @Test("Back after 2 h: refresh and re-fetch the user")
    func longBackground() async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 0)
        await harness.manager.restore()
        await harness.manager.setPhase(.inactive)
        await harness.manager.setPhase(.background)
        harness.clock.advance(by: 2 * 3600)
        #expect(harness.backend.refreshCalls == 0, "no refresh while in the background")
        await harness.manager.setPhase(.active)
        #expect(harness.backend.refreshCalls == 1)
        #expect(harness.backend.state.withLock { $0.userCalls } == 1)
        #expect(await harness.manager.state.isSignedIn)
    }

    @Test("Back after 2 h to a deleted account: signed out (userDeleted)")
    func deletedWhileAway() async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 0)
        await harness.manager.restore()
        await harness.manager.setPhase(.background)
        harness.clock.advance(by: 2 * 3600)
        harness.backend.state.withLock { $0.userError = .server(status: 403, code: "user_not_found", message: nil, retryAfter: nil) }
        await harness.manager.setPhase(.active)
        #expect(await harness.manager.state == .signedOut(.userDeleted))
    }
}
