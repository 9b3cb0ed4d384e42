import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

@Suite("Install markers, file lock, memory store")
struct MarkerAndLockTests {
    @Test("File install marker: absent, then set, survives a new instance")
    func fileMarker() async throws {
        let directory = temporaryDirectory("marker")
        defer { removeDirectory(directory) }
        let url = directory.appendingPathComponent("config/installed")
        #expect(try await FileInstallMarker(url: url).isSet() == false)
        try await FileInstallMarker(url: url).set()
        #expect(try await FileInstallMarker(url: url).isSet())
    }

    @Test("UserDefaults install marker in its own suite")
    func defaultsMarker() async throws {
        let suite = "latchkey-tests-\(UUID().uuidString)"
        let marker = UserDefaultsInstallMarker(suiteName: suite)
        #expect(try await marker.isSet() == false)
        try await marker.set()
        #expect(try await UserDefaultsInstallMarker(suiteName: suite).isSet())
        UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite)
    }

    @Test("The file lock excludes a second holder until released, then lets it in")
    func fileLock() async throws {
        let directory = temporaryDirectory("lock")
        defer { removeDirectory(directory) }
        let url = directory.appendingPathComponent("refresh.lock")
        let first = try #require(try await FileLock(url: url).acquire(timeout: 1))
        let blocked = try await FileLock(url: url).acquire(timeout: 0.05)
        #expect(blocked == nil, "a second open file description must not get the lock")
        first.release()
        let second = try #require(try await FileLock(url: url).acquire(timeout: 1))
        second.release()
    }

    @Test("Memory store")
    func memory() async throws {
        let store = MemoryCredentialStore()
        #expect(try await store.load(key: "a") == nil)
        try await store.save(Data([1]), key: "a")
        #expect(try await store.load(key: "a") == Data([1]))
        try await store.delete(key: "a")
        #expect(await store.keys.isEmpty)
    }
}
