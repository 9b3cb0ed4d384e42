import Foundation

/// Secure storage for the bytes of a session, keyed by name.
///
/// The contract that keeps users signed in: ``load(key:)`` returns `nil` **only** when nothing is
/// stored under `key`. Every other failure (locked, corrupted, unreachable, an OS status) throws a
/// ``StorageError``, so a storage problem is reported and never mistaken for "signed out".
///
/// Implementations: `KeychainCredentialStore` (Apple), ``SecretServiceCredentialStore`` (the
/// Linux desktop keyring), ``EncryptedFileCredentialStore`` and ``MemoryCredentialStore``.
public protocol CredentialStore: Sendable {
    /// The bytes stored under `key`, or `nil` when there are none.
    /// - Throws: ``StorageError`` for anything but "not found".
    func load(key: String) async throws -> Data?

    /// Stores `data` under `key`, replacing what was there. Returns once the write is durable.
    /// - Throws: ``StorageError``.
    func save(_ data: Data, key: String) async throws

    /// Removes what is stored under `key`. Removing something absent succeeds.
    /// - Throws: ``StorageError``.
    func delete(key: String) async throws
}

/// Keeps credentials in memory only: for tests, previews and "don't remember me".
public actor MemoryCredentialStore: CredentialStore {
    private var items: [String: Data]

    /// Creates a store holding `items`.
    public init(items: [String: Data] = [:]) {
        self.items = items
    }

    public func load(key: String) async throws -> Data? {
        items[key]
    }

    public func save(_ data: Data, key: String) async throws {
        items[key] = data
    }

    public func delete(key: String) async throws {
        items[key] = nil
    }

    /// The keys currently stored.
    public var keys: [String] { Array(items.keys) }
}
