import Crypto
import Foundation

/// Credentials in owner-only files, sealed with AES-256-GCM.
///
/// Each key is one file (mode 0600, in a 0700 directory), replaced atomically (temporary file,
/// `fsync`, `rename`), so a crash mid-write leaves the previous session intact. The file is
/// authenticated and bound to its key name: a truncated, tampered-with or swapped file, or one
/// sealed with another key, loads as ``StorageError/corrupted(reason:)`` — never a crash and
/// never a silent "signed out".
///
/// The 256-bit encryption key lives apart from the data: in the desktop keyring when one
/// answers (``KeySource/credentialStore(_:key:)``), otherwise in its own 0600 key file
/// (``KeySource/keyFile(_:)``). Use ``standard(directory:service:)`` to pick automatically.
public actor EncryptedFileCredentialStore: CredentialStore {
    /// Where the encryption key is kept.
    public enum KeySource: Sendable {
        /// A 32-byte key file (mode 0600), created on first use.
        case keyFile(URL)
        /// A key kept in another credential store (a keyring), created on first use.
        case credentialStore(any CredentialStore, key: String)
    }

    private static let magic: [UInt8] = Array("LKC1".utf8)

    /// The directory holding the sealed files.
    public nonisolated let directory: URL
    private let keySource: KeySource
    private var cachedKey: SymmetricKey?

    /// Creates a store sealing files in `directory` with a key from `keySource`.
    public init(directory: URL, keySource: KeySource) {
        self.directory = directory
        self.keySource = keySource
    }

    /// A store in `directory` whose key lives in the Secret Service keyring when one answers,
    /// else in `directory/.key`.
    public static func standard(directory: URL, service: String) async -> EncryptedFileCredentialStore {
        let keyring = SecretServiceCredentialStore(service: service)
        if await keyring.isAvailable() {
            return EncryptedFileCredentialStore(
                directory: directory, keySource: .credentialStore(keyring, key: "file-encryption-key"))
        }
        return EncryptedFileCredentialStore(
            directory: directory, keySource: .keyFile(directory.appendingPathComponent(".key")))
    }

    /// The file that holds `key`.
    public nonisolated func fileURL(for key: String) -> URL {
        let allowed = key.unicodeScalars.allSatisfy {
            CharacterSet.alphanumerics.contains($0) && $0.isASCII || "._-".unicodeScalars.contains($0)
        }
        let name =
            allowed && !key.hasPrefix(".") && !key.isEmpty
            ? key : SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
        return directory.appendingPathComponent(name + ".sealed")
    }

    public func load(key: String) async throws -> Data? {
        guard let sealed = try AtomicFile.read(fileURL(for: key)) else { return nil }
        guard sealed.count >= Self.magic.count + 28, sealed.prefix(Self.magic.count).elementsEqual(Self.magic)
        else { throw StorageError.corrupted(reason: "not a sealed credential file") }
        let encryptionKey = try await self.encryptionKey()
        do {
            let box = try AES.GCM.SealedBox(combined: sealed.dropFirst(Self.magic.count))
            return try AES.GCM.open(box, using: encryptionKey, authenticating: Self.associatedData(key))
        } catch {
            throw StorageError.corrupted(reason: "authentication failed")
        }
    }

    public func save(_ data: Data, key: String) async throws {
        let encryptionKey = try await self.encryptionKey()
        let box: AES.GCM.SealedBox
        do {
            box = try AES.GCM.seal(data, using: encryptionKey, authenticating: Self.associatedData(key))
        } catch {
            throw StorageError.unavailable(reason: "encryption failed")
        }
        guard let combined = box.combined else { throw StorageError.unavailable(reason: "encryption failed") }
        try AtomicFile.write(Data(Self.magic) + combined, to: fileURL(for: key))
    }

    public func delete(key: String) async throws {
        try AtomicFile.remove(fileURL(for: key))
    }

    private static func associatedData(_ key: String) -> Data {
        Data("latchkey:\(key)".utf8)
    }

    private func encryptionKey() async throws -> SymmetricKey {
        if let cachedKey { return cachedKey }
        let key: SymmetricKey
        switch keySource {
        case .keyFile(let url):
            key = try Self.loadOrCreateKeyFile(url)
        case .credentialStore(let store, let name):
            key = try await Self.loadOrCreateKey(in: store, name: name)
        }
        cachedKey = key
        return key
    }

    private static func loadOrCreateKeyFile(_ url: URL) throws -> SymmetricKey {
        if let bytes = try AtomicFile.read(url) {
            guard bytes.count == 32 else { throw StorageError.corrupted(reason: "encryption key file has the wrong size") }
            return SymmetricKey(data: bytes)
        }
        let fresh = SymmetricKey(size: .bits256)
        let bytes = fresh.withUnsafeBytes { Data($0) }
        // Another process may create the key at the same moment: the first link wins, and
        // everyone uses the winner's key.
        try AtomicFile.createExclusively(bytes, at: url)
        guard let stored = try AtomicFile.read(url), stored.count == 32 else {
            throw StorageError.corrupted(reason: "encryption key file has the wrong size")
        }
        return SymmetricKey(data: stored)
    }

    private static func loadOrCreateKey(in store: any CredentialStore, name: String) async throws -> SymmetricKey {
        if let bytes = try await store.load(key: name) {
            guard bytes.count == 32 else { throw StorageError.corrupted(reason: "encryption key has the wrong size") }
            return SymmetricKey(data: bytes)
        }
        let fresh = SymmetricKey(size: .bits256)
        try await store.save(fresh.withUnsafeBytes { Data($0) }, key: name)
        guard let stored = try await store.load(key: name), stored.count == 32 else {
            throw StorageError.corrupted(reason: "encryption key has the wrong size")
        }
        return SymmetricKey(data: stored)
    }
}
