import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// An app that shipped with ``UserDefaultsInstallMarker`` (or the shared macOS path of earlier
/// releases) and moves to ``FileInstallMarker``: the first launch of the new release finds the
/// file missing and the credentials present, which is not a reinstall.
@Suite("Upgrading to the file install marker")
struct UpgradeMarkerTests {
    let directory = temporaryDirectory("upgrade-marker")
    let suite = "latchkey-tests-\(UUID().uuidString)"

    func cleanUp() {
        removeDirectory(directory)
        UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite)
    }

    /// A signed-in installation of the earlier release: its marker set in `UserDefaults`.
    func earlierRelease(_ protectedData: ScriptedProtectedData) async throws -> (TestBackend, MemoryCredentialStore, Session) {
        let backend = TestBackend()
        let store = MemoryCredentialStore()
        let earlier = SessionManager(
            backend: backend, store: store,
            installMarker: UserDefaultsInstallMarker(suiteName: suite, protectedData: protectedData, history: ProtectedDataHistory()),
            logger: .quiet)
        await earlier.restore()
        let session = try await earlier.account.signIn(email: "ada@example.com", password: "correct horse")
        return (backend, store, session)
    }

    @Test("The earlier UserDefaults marker is set: the session survives the upgrade, and the file is written once")
    func migratesFromUserDefaults() async throws {
        defer { cleanUp() }
        let protectedData = ScriptedProtectedData()
        let (backend, store, session) = try await earlierRelease(protectedData)
        let url = directory.appendingPathComponent("dev.latchkey/installed")
        let upgraded = SessionManager(
            backend: backend, store: store,
            installMarker: FileInstallMarker(url: url).migrating(
                from: UserDefaultsInstallMarker(suiteName: suite, protectedData: protectedData, history: ProtectedDataHistory())),
            logger: .quiet)
        #expect(await upgraded.restore() == .signedIn(session), "not a reinstall: the earlier marker is set")
        #expect(try await store.load(key: "latchkey.session") != nil, "nothing wiped")
        #expect(FileManager.default.fileExists(atPath: url.path), "the file marker is written")

        // The earlier marker is not asked again: a later launch reads the file alone.
        UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite)
        #expect(try await FileInstallMarker(url: url).isSet())
    }

    @Test("Without the migration the same upgrade wipes the session (what the migration prevents)")
    func withoutMigrationIsAWipe() async throws {
        defer { cleanUp() }
        let (backend, store, _) = try await earlierRelease(ScriptedProtectedData())
        let upgraded = SessionManager(
            backend: backend, store: store, installMarker: FileInstallMarker(url: directory.appendingPathComponent("installed")),
            logger: .quiet)
        #expect(await upgraded.restore() == .signedOut(.staleInstall))
    }

    @Test("Before the first unlock the earlier marker cannot tell: nothing is wiped, the next restore decides")
    func earlierMarkerCannotTell() async throws {
        defer { cleanUp() }
        let protectedData = ScriptedProtectedData()
        let (backend, store, session) = try await earlierRelease(protectedData)
        protectedData.setAvailable(false)
        let url = directory.appendingPathComponent("installed")
        let history = ProtectedDataHistory()
        let marker = FileInstallMarker(url: url).migrating(
            from: UserDefaultsInstallMarker(suiteName: suite, protectedData: protectedData, history: history))
        let upgraded = SessionManager(backend: backend, store: store, installMarker: marker, logger: .quiet)
        // The defaults read as empty before the first unlock.
        let saved = UserDefaults(suiteName: suite)?.bool(forKey: "dev.latchkey.installed") ?? false
        UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite)
        #expect(await upgraded.restore() == .signedOut(.storageFailure(.locked)))
        #expect(try await store.load(key: "latchkey.session") != nil, "nothing wiped")
        #expect(!FileManager.default.fileExists(atPath: url.path))

        // The next launch, unlocked, reads the defaults from disk.
        UserDefaults(suiteName: suite)?.set(saved, forKey: "dev.latchkey.installed")
        protectedData.setAvailable(true)
        let next = SessionManager(
            backend: backend, store: store,
            installMarker: FileInstallMarker(url: url).migrating(
                from: UserDefaultsInstallMarker(suiteName: suite, protectedData: protectedData, history: ProtectedDataHistory())),
            logger: .quiet)
        #expect(await next.restore() == .signedIn(session))
    }

    @Test("A genuine reinstall (no file, no earlier marker) is still a reinstall")
    func reinstallStillDetected() async throws {
        defer { cleanUp() }
        let (backend, store, _) = try await earlierRelease(ScriptedProtectedData())
        UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite)  // the uninstall
        let upgraded = SessionManager(
            backend: backend, store: store,
            installMarker: FileInstallMarker(url: directory.appendingPathComponent("installed")).migrating(
                from: UserDefaultsInstallMarker(suiteName: suite, protectedData: ScriptedProtectedData(), history: ProtectedDataHistory())),
            logger: .quiet)
        #expect(await upgraded.restore() == .signedOut(.staleInstall))
    }

    @Test("macOS: the marker lives under the app's bundle identifier; the path shared by every app counts as set")
    func perAppDirectory() async throws {
        defer { cleanUp() }
        let perApp = ApplicationSupport.latchkeyDirectory(base: directory, bundleIdentifier: "com.example.notes", perApp: true)
        #expect(perApp.path.hasSuffix("/com.example.notes/dev.latchkey"))
        let other = ApplicationSupport.latchkeyDirectory(base: directory, bundleIdentifier: "com.example.mail", perApp: true)
        #expect(perApp != other, "two apps of the same user never share a marker")
        #expect(
            ApplicationSupport.latchkeyDirectory(base: directory, bundleIdentifier: "../..", perApp: true).path
                .hasPrefix(directory.path + "/"), "a strange identifier never leaves Application Support")
        #expect(
            ApplicationSupport.latchkeyDirectory(base: directory, bundleIdentifier: "com.example.notes", perApp: false).path.hasSuffix(
                "/dev.latchkey"))

        // Upgrading from the shared path of earlier releases.
        let shared = FileInstallMarker(url: directory.appendingPathComponent("dev.latchkey/installed"))
        try await shared.set()
        let marker = FileInstallMarker(url: perApp.appendingPathComponent("installed")).migrating(from: shared)
        #expect(try await marker.isSet())
        #expect(FileManager.default.fileExists(atPath: perApp.appendingPathComponent("installed").path))
    }

    @Test("tvOS: the standard marker lives in UserDefaults, and a missing one is never read as a reinstall")
    func tvOSNeverWipes() async throws {
        defer { cleanUp() }
        let backend = TestBackend()
        let store = MemoryCredentialStore()
        let key = "latchkey-tests-installed-\(UUID().uuidString)"
        defer { UserDefaults.standard.removeObject(forKey: key) }
        // Application Support was purged (tvOS keeps no persistent local files): no file.
        let marker = FileInstallMarker(url: directory.appendingPathComponent("purged/installed"), earlier: [], defaultsKey: key)
        let first = SessionManager(backend: backend, store: store, installMarker: marker, logger: .quiet)
        await first.restore()
        let session = try await first.account.signIn(email: "ada@example.com", password: "correct horse")
        try await marker.set()
        #expect(UserDefaults.standard.bool(forKey: key), "set in UserDefaults, which tvOS keeps")
        #expect(!FileManager.default.fileExists(atPath: marker.url.path), "no file for tvOS to purge")
        UserDefaults.standard.removeObject(forKey: key)
        let next = SessionManager(backend: backend, store: store, installMarker: marker, logger: .quiet)
        #expect(await next.restore() == .signedIn(session), "a missing marker is not a reinstall on tvOS")
    }
}
