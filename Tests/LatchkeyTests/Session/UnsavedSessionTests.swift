import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// A session the store refused (a keychain item of `whenUnlockedThisDeviceOnly` written while
/// the device is locked) stays the authoritative one, is stored again at the next opportunity,
/// and is never followed by a second rotation the store also misses.
@Suite("A session the store refused")
struct UnsavedSessionTests {
    /// A signed-in harness whose store then refuses writes, and one refresh that the store
    /// missed: the manager holds `refresh-1`, the store `refresh-0`.
    func refreshedWhileLocked(_ configure: @escaping (inout SessionManagerConfiguration) -> Void = { _ in }) async throws -> Harness {
        let harness = Harness {
            $0.automaticRefresh = false
            configure(&$0)
        }
        _ = try await harness.seed()
        #expect(await harness.manager.restore().isSignedIn)
        await harness.store.setSaveError(.locked)
        harness.clock.advance(by: 3600 - 30)
        let refreshed = try await harness.manager.session(minTTL: 60)
        #expect(refreshed.refreshToken == "refresh-1")
        #expect(await harness.manager.hasUnsavedSession)
        #expect(try await harness.stored()?.session.refreshToken == "refresh-0")
        return harness
    }

    /// What a rotation held back for an unsaved session throws.
    let notStored = UnsavedSession(storeHolds: "refresh-0", storeHoldsParent: true, error: .locked).failure

    @Test("No second rotation while the store is one behind, even past expiry: signed in offline until the write lands")
    func noSecondRefresh() async throws {
        let harness = try await refreshedWhileLocked()
        harness.clock.advance(by: 3600 - 30)  // 30 s left: a saved session would be refreshed
        #expect(try await harness.manager.session(minTTL: 60).refreshToken == "refresh-1")
        #expect(try await harness.manager.refresh().refreshToken == "refresh-1")
        #expect(harness.backend.refreshCalls == 1, "the store is one rotation behind; a second would lose the session")

        harness.clock.advance(by: 31)  // expired, and still not stored
        await #expect(throws: notStored) { try await harness.manager.session(minTTL: 60) }
        await #expect(throws: notStored) { try await harness.manager.refresh() }
        #expect(harness.backend.refreshedWith == ["refresh-0"], "the store holds refresh-0: rotating refresh-1 would leave it two behind")
        #expect(await harness.manager.state == .signedInOffline(try #require(await harness.manager.currentSession)))
        #expect(await harness.manager.currentSession?.refreshToken == "refresh-1", "kept in memory")
        #expect(await harness.manager.hasUnsavedSession)
        #expect(try await harness.stored()?.session.refreshToken == "refresh-0")

        await harness.store.setSaveError(nil)
        let refreshed = try await harness.manager.session(minTTL: 60)
        #expect(refreshed.refreshToken == "refresh-2", "stored first, then rotated")
        #expect(harness.backend.refreshedWith == ["refresh-0", "refresh-1"])
        #expect(try await harness.stored()?.session.refreshToken == "refresh-2")
        #expect(await !harness.manager.hasUnsavedSession)
        #expect(await harness.manager.state == .signedIn(refreshed))
    }

    @Test("A launch after the store takes the held session presents the server's active token or its parent, never the grandparent")
    func launchAfterHeldBack() async throws {
        let harness = try await refreshedWhileLocked()
        harness.clock.advance(by: 3600)  // expired while locked
        _ = try? await harness.manager.session()
        _ = try? await harness.manager.refresh()
        // The app is killed now; the store still holds refresh-0, the parent of the server's
        // active refresh-1: the next launch is forgiven.
        let active = try #require(harness.backend.refreshedWith.last)
        #expect(active == "refresh-0")
        #expect(try await harness.stored()?.session.refreshToken == "refresh-0")
        #expect(harness.backend.refreshCalls == 1)
    }

    @Test("Protected data becoming available stores the unsaved session")
    func protectedDataAvailable() async throws {
        let harness = try await refreshedWhileLocked()
        await harness.manager.protectedDataDidBecomeAvailable()
        #expect(try await harness.stored()?.session.refreshToken == "refresh-0", "still locked: nothing stored")
        #expect(await harness.manager.hasUnsavedSession)

        await harness.store.setSaveError(nil)
        await harness.manager.protectedDataDidBecomeAvailable()
        #expect(try await harness.stored()?.session.refreshToken == "refresh-1")
        #expect(await !harness.manager.hasUnsavedSession)
        #expect(harness.backend.refreshCalls == 1)
    }

    @Test("Becoming active stores the unsaved session")
    func becomingActive() async throws {
        let harness = try await refreshedWhileLocked()
        await harness.manager.setPhase(.background)
        await harness.store.setSaveError(nil)
        await harness.manager.setPhase(.active)
        #expect(try await harness.stored()?.session.refreshToken == "refresh-1")
        #expect(await !harness.manager.hasUnsavedSession)
    }

    @Test("The proactive refresh waits for the unsaved session's expiry")
    func proactiveRefreshHeldBack() async throws {
        let harness = Harness { $0.refreshMargin = 60 }
        _ = try await harness.seed()
        #expect(await harness.manager.restore().isSignedIn)
        await harness.store.setSaveError(.locked)
        #expect(await eventually { harness.clock.sleeperCount >= 1 })
        harness.clock.advance(by: 3600 - 60)  // the proactive refresh is due
        #expect(await eventually { harness.backend.refreshCalls == 1 })
        #expect(await eventually { await harness.manager.hasUnsavedSession })
        #expect(await eventually { harness.clock.sleeperCount >= 1 })
        harness.clock.advance(by: 3600 - 60)  // due again, but unsaved and still valid
        #expect(await eventually { harness.clock.sleeperCount >= 1 })
        #expect(harness.backend.refreshCalls == 1)
        harness.clock.advance(by: 60)  // expired: signed in offline, not rotated
        #expect(await eventually { if case .signedInOffline = await harness.manager.state { true } else { false } })
        #expect(harness.backend.refreshCalls == 1)

        await harness.store.setSaveError(nil)
        await harness.manager.protectedDataDidBecomeAvailable()  // stored: the refresh runs now
        #expect(await eventually { harness.backend.refreshCalls == 2 })
        #expect(harness.backend.refreshedWith == ["refresh-0", "refresh-1"])
        #expect(await eventually { (try? await harness.stored())?.session.refreshToken == "refresh-2" })
    }

    @Test("Signing out forgets the unsaved session: nothing is written back")
    func signOutClears() async throws {
        let harness = try await refreshedWhileLocked()
        await harness.manager.signOut()
        #expect(await !harness.manager.hasUnsavedSession)
        #expect(try await harness.stored() == nil)
        await harness.store.setSaveError(nil)
        let saves = await harness.store.saves
        await harness.manager.protectedDataDidBecomeAvailable()
        await harness.manager.setPhase(.background)
        await harness.manager.setPhase(.active)
        #expect(try await harness.stored() == nil)
        #expect(await harness.store.saves == saves)
    }

    @Test("Under the cross-process lock, the older stored session never replaces the unsaved one")
    func rereadKeepsUnsaved() async throws {
        let directory = temporaryDirectory("unsaved-lock")
        defer { removeDirectory(directory) }
        let lockURL = directory.appendingPathComponent("refresh.lock")
        let harness = try await refreshedWhileLocked { $0.crossProcessLockURL = lockURL }
        harness.clock.advance(by: 3600)  // expired
        await #expect(throws: notStored) { try await harness.manager.session() }
        #expect(harness.backend.refreshedWith == ["refresh-0"], "neither the stored, spent refresh-0 again, nor a second rotation")
        #expect(await harness.manager.state.isSignedIn)

        await harness.store.setSaveError(nil)
        await harness.manager.protectedDataDidBecomeAvailable()
        #expect(try await harness.stored()?.session.refreshToken == "refresh-1")
        #expect(try await harness.manager.session().refreshToken == "refresh-2")
        #expect(harness.backend.refreshedWith == ["refresh-0", "refresh-1"])
        #expect(try await harness.stored()?.session.refreshToken == "refresh-2")
    }

    @Test("Tokens another process stored meanwhile are adopted, not overwritten")
    func adoptsNewerFromAnotherProcess() async throws {
        let directory = temporaryDirectory("unsaved-other")
        defer { removeDirectory(directory) }
        let lockURL = directory.appendingPathComponent("refresh.lock")
        let harness = try await refreshedWhileLocked { $0.crossProcessLockURL = lockURL }
        let other = sampleSession(issuedAt: harness.clock.now(), access: "access-9", refresh: "refresh-9")
        try await storeSession(other, in: harness.store.base, signedInAt: harness.clock.now())
        await harness.store.setSaveError(nil)
        await harness.manager.protectedDataDidBecomeAvailable()
        #expect(await !harness.manager.hasUnsavedSession)
        #expect(await harness.manager.currentSession?.refreshToken == "refresh-9")
        #expect(try await harness.stored()?.session.refreshToken == "refresh-9")
    }

    @Test("A sign-in the store refused is kept, refreshed from memory, and stored later")
    func signInUnsaved() async throws {
        let directory = temporaryDirectory("unsaved-sign-in")
        defer { removeDirectory(directory) }
        let lockURL = directory.appendingPathComponent("refresh.lock")
        let harness = Harness {
            $0.automaticRefresh = false
            $0.crossProcessLockURL = lockURL
        }
        #expect(await harness.manager.restore() == .signedOut(.noSession))
        await harness.store.setSaveError(.locked)
        let session = try await harness.manager.account.signIn(email: "ada@example.com", password: "correct horse")
        #expect(await harness.manager.hasUnsavedSession)
        #expect(try await harness.stored() == nil)

        harness.clock.advance(by: 3600)  // expired; the empty store is not "signed out elsewhere"
        let refreshed = try await harness.manager.session()
        #expect(harness.backend.refreshedWith == [session.refreshToken])
        #expect(await harness.manager.state == .signedIn(refreshed))

        await harness.store.setSaveError(nil)
        await harness.manager.protectedDataDidBecomeAvailable()
        #expect(try await harness.stored()?.session.refreshToken == refreshed.refreshToken)
    }

    @Test("restore() while a session is unsaved keeps it instead of re-reading the older store")
    func restoreKeepsUnsaved() async throws {
        let harness = try await refreshedWhileLocked()
        #expect(await harness.manager.restore().session?.refreshToken == "refresh-1")
        #expect(await harness.manager.hasUnsavedSession)
    }
}
