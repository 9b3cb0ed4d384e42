import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// Refreshes that complete while the device is locked (a `whenUnlockedThisDeviceOnly` keychain
/// refuses the write), against the real server and its refresh-token rules: the parent of the
/// active token is forgiven at any time, older spent tokens only within the reuse interval.
@Suite("End to end: refreshes the store refused")
struct UnsavedRefreshTests {
    @Test(
        "A second refresh while the store is one behind is held back (signed in offline); a launch before the unlock presents the parent, which the server forgives"
    )
    func noSecondRotationWhileLocked() async throws {
        try await withTestServer { server in
            let base = MemoryCredentialStore()
            let keychain = FaultyStore(base: base)
            let app = E2EApp(server: server, store: keychain) { $0.automaticRefresh = false }
            let (manager, original) = try await app.signUp()

            await keychain.setSaveError(.locked)  // the device locks
            app.clock.advance(by: 2 * 3600)
            server.serverClock.advance(by: 60)
            let first = try await manager.session()
            #expect(first.refreshToken != original.refreshToken)
            app.clock.advance(by: 2 * 3600)
            server.serverClock.advance(by: 60)
            await #expect(throws: AuthFailure.self, "expired and not stored: not rotated again") { try await manager.session() }
            guard case .signedInOffline = await manager.state else {
                Issue.record("expected signed in offline, got \(await manager.state)")
                return
            }
            #expect(try await server.refreshCount() == 1)
            #expect(try await app.storedRefreshToken() == original.refreshToken, "the store is one rotation behind, never two")
            server.serverClock.advance(by: 60)  // far beyond the reuse interval

            // The app is killed before the device is unlocked. The next launch, its access token
            // expired, presents the stored token: the parent of the server's active one.
            app.clock.advance(by: 2 * 3600)
            let next = E2EApp(server: server, store: base, clock: app.clock)
            try await next.marker.set()
            let state = await next.launch().restore()
            guard case .signedIn = state else {
                Issue.record("expected signed in (the parent is forgiven), got \(state)")
                return
            }
        }
    }

    @Test("Held back while locked, then unlocked: stored first, then refreshed once from the newest token")
    func heldBackThenUnlocked() async throws {
        try await withTestServer { server in
            let base = MemoryCredentialStore()
            let keychain = FaultyStore(base: base)
            let app = E2EApp(server: server, store: keychain) { $0.automaticRefresh = false }
            let (manager, _) = try await app.signUp()
            await keychain.setSaveError(.locked)
            app.clock.advance(by: 2 * 3600)
            server.serverClock.advance(by: 60)
            let first = try await manager.session()
            app.clock.advance(by: 2 * 3600)
            server.serverClock.advance(by: 60)
            _ = try? await manager.session()

            await keychain.setSaveError(nil)  // unlocked
            await manager.protectedDataDidBecomeAvailable()
            #expect(try await app.storedRefreshToken() == first.refreshToken, "stored before anything is rotated")
            let second = try await manager.session()
            #expect(second.refreshToken != first.refreshToken)
            #expect(try await app.storedRefreshToken() == second.refreshToken)
            #expect(await manager.state == .signedIn(second))
            #expect(try await server.refreshCount() == 2)
        }
    }

    @Test("Protected data becoming available stores a refresh the locked store refused")
    func protectedDataAvailable() async throws {
        try await withTestServer { server in
            let base = MemoryCredentialStore()
            let keychain = FaultyStore(base: base)
            let app = E2EApp(server: server, store: keychain) { $0.automaticRefresh = false }
            let (manager, original) = try await app.signUp()
            await keychain.setSaveError(.locked)
            app.clock.advance(by: 2 * 3600)
            let refreshed = try await manager.session()
            #expect(try await app.storedRefreshToken() == original.refreshToken)

            await keychain.setSaveError(nil)
            await manager.protectedDataDidBecomeAvailable()
            #expect(try await app.storedRefreshToken() == refreshed.refreshToken)
            #expect(await !manager.hasUnsavedSession)
        }
    }
}
