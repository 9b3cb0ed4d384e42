import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// Refreshes that complete while the device is locked (a `whenUnlockedThisDeviceOnly` keychain
/// refuses the write), against the real server and its refresh-token rules: the parent of the
/// active token is forgiven at any time, older spent tokens only within the reuse interval.
@Suite("End to end: refreshes the store refused")
struct UnsavedRefreshTests {
    @Test("Two refreshes while the store refuses writes, then it recovers → the store holds the newest session; the next launch is signed in")
    func twoRefreshesWhileLocked() async throws {
        try await withTestServer { server in
            let base = MemoryCredentialStore()
            let keychain = FaultyStore(base: base)
            let app = E2EApp(server: server, store: keychain) { $0.automaticRefresh = false }
            let (manager, original) = try await app.signUp()

            await keychain.setSaveError(.locked)  // the device locks
            app.clock.advance(by: 2 * 3600)
            server.serverClock.advance(by: 60)
            let first = try await manager.session()
            app.clock.advance(by: 2 * 3600)
            server.serverClock.advance(by: 60)
            let second = try await manager.session()  // expired: refreshed from the token in memory
            #expect(first.refreshToken != original.refreshToken)
            #expect(second.refreshToken != first.refreshToken)
            #expect(try await app.storedRefreshToken() == original.refreshToken, "the store is two rotations behind")
            server.serverClock.advance(by: 60)  // far beyond the reuse interval

            await keychain.setSaveError(nil)  // unlocked
            _ = try await manager.session()  // the next opportunity stores it
            #expect(try await app.storedRefreshToken() == second.refreshToken)

            // A new launch, its access token expired: one refresh, from the newest token.
            app.clock.advance(by: 2 * 3600)
            let next = E2EApp(server: server, store: base, clock: app.clock)
            try await next.marker.set()
            let state = await next.launch().restore()
            guard case .signedIn(let restored) = state else {
                Issue.record("expected signed in, got \(state)")
                return
            }
            #expect(restored.refreshToken != second.refreshToken)
            #expect(try await server.refreshCount() == 3)
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
