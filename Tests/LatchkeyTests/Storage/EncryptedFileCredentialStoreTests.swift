import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

@Suite("Encrypted file store")
struct EncryptedFileCredentialStoreTests {
    let directory = temporaryDirectory("encrypted-store")
    var keyFile: URL { directory.appendingPathComponent("keys/.key") }

    func makeStore() -> EncryptedFileCredentialStore {
        EncryptedFileCredentialStore(directory: directory.appendingPathComponent("data"), keySource: .keyFile(keyFile))
    }

    func permissions(_ url: URL) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        return (attributes[.posixPermissions] as? NSNumber)?.intValue ?? -1
    }

    @Test("Round trip; missing is nil; delete is idempotent")
    func roundTrip() async throws {
        defer { removeDirectory(directory) }
        let store = makeStore()
        #expect(try await store.load(key: "latchkey.session") == nil)
        let secret = Data("refresh-token-SECRET-1234".utf8)
        try await store.save(secret, key: "latchkey.session")
        #expect(try await store.load(key: "latchkey.session") == secret)
        // A second instance (another launch) reads it with the key file.
        #expect(try await makeStore().load(key: "latchkey.session") == secret)
        try await store.save(Data("v2".utf8), key: "latchkey.session")
        #expect(try await store.load(key: "latchkey.session") == Data("v2".utf8))
        try await store.delete(key: "latchkey.session")
        try await store.delete(key: "latchkey.session")
        #expect(try await store.load(key: "latchkey.session") == nil)
    }

    @Test("Files are owner-only and hold no plain text; no temporary files are left")
    func permissionsAndCiphertext() async throws {
        defer { removeDirectory(directory) }
        let store = makeStore()
        let secret = Data("refresh-token-SECRET-1234".utf8)
        try await store.save(secret, key: "latchkey.session")
        let file = store.fileURL(for: "latchkey.session")
        #expect(try permissions(file) == 0o600)
        #expect(try permissions(keyFile) == 0o600)
        #expect(try permissions(file.deletingLastPathComponent()) == 0o700)
        let raw = try Data(contentsOf: file)
        #expect(raw.range(of: secret) == nil)
        #expect(raw.range(of: Data("SECRET".utf8)) == nil)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: file.deletingLastPathComponent().path)
        #expect(leftovers == [file.lastPathComponent])
    }

    @Test("A flipped byte, a truncated file or garbage loads as corrupted, never crashes")
    func tampering() async throws {
        defer { removeDirectory(directory) }
        let store = makeStore()
        try await store.save(Data("session".utf8), key: "k")
        let file = store.fileURL(for: "k")
        let original = try Data(contentsOf: file)

        var flipped = original
        flipped[flipped.count - 5] ^= 0x01
        for damaged in [flipped, original.prefix(original.count - 1), original.prefix(10), Data(), Data("hello".utf8)] {
            try damaged.write(to: file)
            await #expect(throws: StorageError.self) { try await makeStore().load(key: "k") }
            do {
                _ = try await makeStore().load(key: "k")
            } catch let error as StorageError {
                guard case .corrupted = error else {
                    Issue.record("expected corrupted, got \(error)")
                    continue
                }
            }
        }
    }

    @Test("A file moved under another key's name is rejected (the key name is authenticated)")
    func swappedFiles() async throws {
        defer { removeDirectory(directory) }
        let store = makeStore()
        try await store.save(Data("alice".utf8), key: "alice")
        try await store.save(Data("mallory".utf8), key: "mallory")
        try FileManager.default.removeItem(at: store.fileURL(for: "alice"))
        try FileManager.default.copyItem(at: store.fileURL(for: "mallory"), to: store.fileURL(for: "alice"))
        await #expect(throws: StorageError.corrupted(reason: "authentication failed")) {
            try await makeStore().load(key: "alice")
        }
    }

    @Test("Data sealed with a lost key is corrupted, and a wrong-sized key file is reported")
    func lostKey() async throws {
        defer { removeDirectory(directory) }
        try await makeStore().save(Data("session".utf8), key: "k")
        try FileManager.default.removeItem(at: keyFile)
        await #expect(throws: StorageError.corrupted(reason: "authentication failed")) {
            try await makeStore().load(key: "k")
        }
        try Data(repeating: 1, count: 7).write(to: keyFile)
        await #expect(throws: StorageError.self) { try await makeStore().load(key: "k") }
    }

    @Test("Odd key names map to safe file names inside the directory")
    func keyNames() async throws {
        defer { removeDirectory(directory) }
        let store = makeStore()
        for key in ["../../etc/passwd", ".hidden", "a/b", "", "ünïcode"] {
            let url = store.fileURL(for: key)
            #expect(url.deletingLastPathComponent().path == directory.appendingPathComponent("data").path)
            try await store.save(Data(key.utf8), key: key)
            #expect(try await store.load(key: key) == Data(key.utf8))
        }
    }

    @Test("An unreadable directory is an error, not 'nothing stored'")
    func unreadable() async throws {
        defer {
            chmod(directory.appendingPathComponent("data").path, 0o700)
            removeDirectory(directory)
        }
        guard getuid() != 0 else { return }  // root reads anything; the check is meaningless
        let store = makeStore()
        try await store.save(Data("x".utf8), key: "k")
        chmod(directory.appendingPathComponent("data").path, 0o000)
        await #expect(throws: StorageError.self) { try await makeStore().load(key: "k") }
    }

    @Test("The key can live in another credential store (a keyring)")
    func keyInStore() async throws {
        defer { removeDirectory(directory) }
        let keyring = MemoryCredentialStore()
        let store = EncryptedFileCredentialStore(directory: directory, keySource: .credentialStore(keyring, key: "file-key"))
        try await store.save(Data("s".utf8), key: "k")
        #expect(try await keyring.load(key: "file-key")?.count == 32)
        let again = EncryptedFileCredentialStore(directory: directory, keySource: .credentialStore(keyring, key: "file-key"))
        #expect(try await again.load(key: "k") == Data("s".utf8))
    }
}
