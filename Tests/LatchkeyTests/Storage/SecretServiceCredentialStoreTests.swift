import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// Runs only where a Secret Service keyring answers. On Debian/Ubuntu:
///
/// ```sh
/// apt-get install -y libsecret-1-0 gnome-keyring dbus dbus-x11
/// dbus-run-session -- sh -c 'eval "$(printf test-password | gnome-keyring-daemon --unlock --components=secrets)";
///   swift test --filter SecretService'
/// ```
///
/// With `LATCHKEY_KEYRING_LOCK_TEST=1` the locked-keyring test runs instead of the others: it
/// locks the login collection over D-Bus and leaves it locked, so run it on its own, last:
///
/// ```sh
///   ... swift test --filter SecretService; LATCHKEY_KEYRING_LOCK_TEST=1 swift test --filter SecretService'
/// ```
@Suite("Secret Service keyring (libsecret via dlopen)", .serialized)
struct SecretServiceCredentialStoreTests {
    static let keyringAnswers = SecretServiceCredentialStore(service: "dev.latchkey.tests").probeSynchronously()

    @Test("Without a keyring, operations throw and isAvailable is false — never 'not found'", .enabled(if: !keyringAnswers, "a keyring answers here"))
    func withoutKeyring() async throws {
        let store = SecretServiceCredentialStore(service: "dev.latchkey.tests")
        #expect(await store.isAvailable() == false)
        await #expect(throws: StorageError.self) { try await store.load(key: "k") }
        await #expect(throws: StorageError.self) { try await store.save(Data("x".utf8), key: "k") }
    }

    @Test(
        "Round trip through the keyring",
        .enabled(
            if: keyringAnswers && !lockTest,
            "needs a Secret Service keyring (dbus-run-session + gnome-keyring-daemon --unlock), and not the lock test"))
    func roundTrip() async throws {
        let service = "dev.latchkey.tests.\(UUID().uuidString)"
        let store = SecretServiceCredentialStore(service: service)
        #expect(try await store.load(key: "session") == nil)
        let data = Data((0..<200).map { UInt8($0) })
        try await store.save(data, key: "session")
        #expect(try await store.load(key: "session") == data)
        try await store.save(Data("v2".utf8), key: "session")
        #expect(try await SecretServiceCredentialStore(service: service).load(key: "session") == Data("v2".utf8))
        #expect(try await SecretServiceCredentialStore(service: service + ".other").load(key: "session") == nil)
        try await store.delete(key: "session")
        try await store.delete(key: "session")
        #expect(try await store.load(key: "session") == nil)
    }

    @Test(
        "The encrypted file store keeps its key in the keyring when one answers",
        .enabled(if: keyringAnswers && !lockTest, "needs a Secret Service keyring, and not the lock test"))
    func standardUsesKeyring() async throws {
        let directory = temporaryDirectory("keyring-file")
        defer { removeDirectory(directory) }
        let service = "dev.latchkey.tests.\(UUID().uuidString)"
        let store = await EncryptedFileCredentialStore.standard(directory: directory, service: service)
        try await store.save(Data("s".utf8), key: "k")
        #expect(!FileManager.default.fileExists(atPath: directory.appendingPathComponent(".key").path))
        #expect(try await SecretServiceCredentialStore(service: service).load(key: "file-encryption-key")?.count == 32)
        try await SecretServiceCredentialStore(service: service).delete(key: "file-encryption-key")
    }

    static let lockTest = ProcessInfo.processInfo.environment["LATCHKEY_KEYRING_LOCK_TEST"] == "1"

    @Test(
        "An item in a locked keyring loads as .locked, never as 'not found'",
        .enabled(if: keyringAnswers && lockTest, "needs a keyring and LATCHKEY_KEYRING_LOCK_TEST=1 (locks the keyring)"))
    func lockedItem() async throws {
        let service = "dev.latchkey.tests.\(UUID().uuidString)"
        let store = SecretServiceCredentialStore(service: service)
        try await store.save(Data("session".utf8), key: "session")
        try await run(
            "/usr/bin/dbus-send",
            [
                "--session", "--print-reply", "--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
                "org.freedesktop.Secret.Service.Lock", "array:objpath:/org/freedesktop/secrets/collection/login",
            ])
        await #expect(throws: StorageError.locked) { try await store.load(key: "session") }
        await #expect(throws: StorageError.locked) { try await store.save(Data("x".utf8), key: "other") }
    }

    /// Runs a tool with `posix_spawn` (``ChildProcess``): Foundation's `Process.run()` crashes
    /// now and then on Linux (swift-corelibs-foundation#5472).
    private func run(_ executable: String, _ arguments: [String]) async throws {
        _ = try await ChildProcess.run(executable: executable, arguments: arguments, environment: ProcessInfo.processInfo.environment)
    }
}
