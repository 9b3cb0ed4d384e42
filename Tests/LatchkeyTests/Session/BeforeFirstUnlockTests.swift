import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// After a reboot, before the first unlock, iOS may launch the app in the background: its
/// preferences read as empty and its keychain items as locked. Nothing read then may be taken
/// for "not set" or "signed out".
@Suite("Before the first unlock after a reboot")
struct BeforeFirstUnlockTests {
    /// An app whose keychain and preferences a reboot makes unreadable.
    struct Device {
        let backend = TestBackend()
        let clock = ManualSessionClock()
        let keychain = LockableStore()
        let protectedData = ScriptedProtectedData()
        let suite = "latchkey-tests-\(UUID().uuidString)"
        /// This "process"'s memory of protected data being unavailable.
        let history = ProtectedDataHistory()
        var marker: UserDefaultsInstallMarker {
            UserDefaultsInstallMarker(suiteName: suite, protectedData: protectedData, history: history)
        }

        func launch() -> SessionManager {
            SessionManager(backend: backend, store: keychain, installMarker: marker, clock: clock, logger: .quiet)
        }

        /// The device restarts: until the first unlock the keychain is locked and the
        /// preferences read as empty (here: the suite is empty and protected data unavailable).
        func reboot() async {
            await keychain.setLocked(true)
            protectedData.setAvailable(false)
            UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite)
        }

        /// The person unlocks the device: everything is readable again.
        func unlock(markerWasSet: Bool = true) async {
            await keychain.setLocked(false)
            protectedData.setAvailable(true)
            if markerWasSet { UserDefaults(suiteName: suite)?.set(true, forKey: marker.key) }
        }

        func remove() {
            UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite)
        }
    }

    @Test("The UserDefaults marker says 'cannot tell' rather than 'not set' before the first unlock")
    func markerCannotTell() async throws {
        let device = Device()
        defer { device.remove() }
        #expect(try await device.marker.isSet() == false, "readable and unset: a fresh install")
        try await device.marker.set()
        #expect(try await device.marker.isSet())
        await device.reboot()
        #expect(await throwsStorageError(.locked) { _ = try await device.marker.isSet() })
        #expect(await throwsStorageError(.locked) { try await device.marker.set() }, "nothing is written blind")
    }

    @Test("Launched before the first unlock: nothing wiped, nothing decided; becoming active signs in with no request")
    func rebootLaunch() async throws {
        let device = Device()
        defer { device.remove() }
        let first = device.launch()
        await first.restore()
        let session = try await first.account.signUp(email: "ada@example.com", password: "correct horse").session
        #expect(session != nil)
        await first.setPhase(.background)

        await device.reboot()
        let launch = device.launch()
        await launch.setPhase(.background)  // a background launch
        let state = await launch.restore()
        #expect(state == .signedOut(.storageFailure(.locked)), "undecided, not signed out")
        #expect(await device.keychain.deleteAttempts == 0, "nothing wiped")
        #expect(await device.keychain.peek(key: "latchkey.session") != nil)
        #expect(SignOutReason.storageFailure(.locked).credentialsKept, "the app offers a retry, not only a login form")

        await device.unlock()
        await launch.setPhase(.active)
        #expect(await launch.state == .signedIn(try #require(session)))
        #expect(device.backend.refreshCalls == 0, "a valid token needs no request")
        #expect(await device.keychain.deleteAttempts == 0)
    }

    @Test("Active all along (never reported inactive): becoming active still restores again")
    func activeWithoutInactive() async throws {
        let device = Device()
        defer { device.remove() }
        let first = device.launch()
        await first.restore()
        _ = try await first.account.signUp(email: "ada@example.com", password: "correct horse")
        await device.reboot()
        let launch = device.launch()  // initial phase: active
        #expect(await launch.restore() == .signedOut(.storageFailure(.locked)))
        await device.unlock()
        await launch.setPhase(.active)
        #expect(await launch.state.isSignedIn)
    }

    @Test("A store that cannot be read is never wiped, even when the install marker reads 'not set'")
    func unreadableStoreNeverWiped() async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 60)
        await harness.marker.clear()
        await harness.store.setLoadError(.locked)
        #expect(await harness.manager.restore() == .signedOut(.storageFailure(.locked)))
        #expect(await harness.store.deletes == 0, "what cannot be read is not wiped")
        #expect(try await harness.stored() != nil)
        #expect(try await harness.marker.isSet() == false, "left unset: decided once the store can be read")

        // Readable again: a marker that really is unset, with credentials present, is a reinstall.
        await harness.store.setLoadError(nil)
        await harness.manager.setPhase(.active)
        #expect(await harness.manager.state == .signedOut(.staleInstall))
        #expect(try await harness.stored() == nil)
    }

    @Test("A corrupted store behind an unset marker is not wiped either: it reads as a storage failure")
    func corruptedStoreNotWiped() async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 60)
        await harness.marker.clear()
        await harness.store.setLoadError(.corrupted(reason: "test"))
        #expect(await harness.manager.restore() == .signedOut(.storageFailure(.corrupted(reason: "test"))))
        #expect(await harness.store.deletes == 0)
    }

    @Test("An install marker that cannot be read ends the launch undecided, and reading it later decides")
    func unreadableMarker() async throws {
        let harness = Harness()
        let seeded = try await harness.seed(age: 60)
        await harness.marker.setReadable(false)
        #expect(await harness.manager.restore() == .signedOut(.storageFailure(.locked)))
        #expect(await harness.store.deletes == 0)
        await harness.marker.setReadable(true)
        await harness.manager.setPhase(.active)
        #expect(await harness.manager.state == .signedIn(seeded))
        #expect(harness.backend.refreshCalls == 0)
    }

    @Test("A sign-in sets the install marker, so the next launch does not wipe its session as a reinstall's")
    func signInSetsMarker() async throws {
        let harness = Harness()
        await harness.marker.clear()
        await harness.store.setLoadError(.locked)
        #expect(await harness.manager.restore() == .signedOut(.storageFailure(.locked)))
        await harness.store.setLoadError(nil)
        try await harness.manager.account.signIn(email: "ada@example.com", password: "correct horse")
        #expect(try await harness.marker.isSet())
        let next = SessionManager(
            backend: harness.backend, store: harness.store, installMarker: harness.marker, clock: harness.clock,
            logger: .quiet)
        #expect(await next.restore().isSignedIn)
    }

    @Test("A process that saw the defaults unreadable never believes 'marker unset': a stale empty copy wipes nothing")
    func staleDefaultsCopy() async throws {
        let device = Device()
        defer { device.remove() }
        let first = device.launch()
        await first.restore()
        let session = try #require(try await first.account.signUp(email: "ada@example.com", password: "correct horse").session)

        await device.reboot()
        let launch = device.launch()
        await launch.setPhase(.background)
        #expect(await launch.restore() == .signedOut(.storageFailure(.locked)))
        // Unlocked, but this process kept the empty copy of the defaults it read while locked:
        // the marker still reads unset although it was set.
        await device.unlock(markerWasSet: false)
        await launch.setPhase(.active)
        #expect(await launch.state == .signedOut(.storageFailure(.locked)), "'not set' is not believed")
        #expect(await device.keychain.deleteAttempts == 0, "nothing wiped")
        #expect(await device.keychain.peek(key: "latchkey.session") != nil)
        #expect(device.history.wasEverUnavailable)

        // The next process reads the defaults from disk: the marker was set all along.
        UserDefaults(suiteName: device.suite)?.set(true, forKey: device.marker.key)
        let next = SessionManager(
            backend: device.backend, store: device.keychain,
            installMarker: UserDefaultsInstallMarker(suiteName: device.suite, protectedData: device.protectedData, history: ProtectedDataHistory()),
            clock: device.clock, logger: .quiet)
        #expect(await next.restore() == .signedIn(session))
    }

    @Test("A process that never saw the defaults unreadable believes 'marker unset': a reinstall is wiped")
    func freshProcessBelievesUnset() async throws {
        let device = Device()
        defer { device.remove() }
        let first = device.launch()
        await first.restore()
        _ = try await first.account.signUp(email: "ada@example.com", password: "correct horse")
        device.remove()  // the uninstall erased the defaults; the keychain stays
        #expect(await device.launch().restore() == .signedOut(.staleInstall))
        #expect(await device.keychain.peek(key: "latchkey.session") == nil)
        #expect(!device.history.wasEverUnavailable)
    }

    @Test("The file marker is read from disk every time: set by another process, it is seen at once")
    func fileMarkerRereads() async throws {
        let directory = temporaryDirectory("marker")
        defer { removeDirectory(directory) }
        let url = directory.appendingPathComponent("installed")
        let marker = FileInstallMarker(url: url)
        #expect(try await marker.isSet() == false)
        try await FileInstallMarker(url: url).set()
        #expect(try await marker.isSet())
        #expect(FileInstallMarker.standard.url.path.hasSuffix("dev.latchkey/installed"))
    }

    @Test("The file marker tells 'not set' from 'cannot tell'")
    func fileMarker() async throws {
        let directory = temporaryDirectory("marker")
        defer { removeDirectory(directory) }
        let marker = FileInstallMarker(url: directory.appendingPathComponent("config/installed"))
        #expect(try await marker.isSet() == false)
        try await marker.set()
        #expect(try await marker.isSet())
        // A marker "inside" a file: the path cannot exist, so it is not set.
        let impossible = FileInstallMarker(url: directory.appendingPathComponent("config/installed/inner"))
        #expect(try await impossible.isSet() == false)
    }
}

extension SignUpResult {
    var session: Session? {
        if case .signedIn(let session) = self { session } else { nil }
    }
}
