import Foundation
import Testing
@testable import Latchkey

/// Runs only where a Secret Service keyring answers, e.g. under
/// `dbus-run-session -- sh -c 'echo pw | gnome-keyring-daemon --unlock --components=secrets; swift test'`.
@Suite("Secret Service keyring (libsecret via dlopen)")
struct SecretServiceCredentialStoreTests {
    static let keyringAnswers = SecretServiceCredentialStore(service: "dev.latchkey.tests").probeSynchronously()

    @Test("Without a keyring, operations throw and isAvailable is false — never 'not found'", .enabled(if: !keyringAnswers, "a keyring answers here"))
    func withoutKeyring() async throws {
        let store = SecretServiceCredentialStore(service: "dev.latchkey.tests")
        #expect(await store.isAvailable() == false)
        await #expect(throws: StorageError.self) { try await store.load(key: "k") }
        await #expect(throws: StorageError.self) { try await store.save(Data("x".utf8), key: "k") }
    }

    @Test("Round trip through the keyring", .enabled(if: keyringAnswers, "no Secret Service keyring answered (run under dbus-run-session with gnome-keyring-daemon --unlock)"))
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

    @Test("The encrypted file store keeps its key in the keyring when one answers", .enabled(if: keyringAnswers, "no Secret Service keyring answered"))
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
}
