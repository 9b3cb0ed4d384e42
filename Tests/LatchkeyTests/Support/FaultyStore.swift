import Foundation
import LatchkeyTestSupport

@testable import Latchkey

/// Wraps a real store and makes chosen operations fail, as a locked keychain, a full disk or a
/// crash between the server's rotation and the local write would.
actor FaultyStore: CredentialStore {
    let base: any CredentialStore
    var loadError: StorageError?
    var saveError: StorageError?
    /// Drop writes silently (a crash right after the server answered).
    var dropWrites = false
    private(set) var saves = 0
    private(set) var deletes = 0

    init(base: any CredentialStore = MemoryCredentialStore()) {
        self.base = base
    }

    func setLoadError(_ error: StorageError?) { loadError = error }
    func setSaveError(_ error: StorageError?) { saveError = error }
    func setDropWrites(_ value: Bool) { dropWrites = value }

    func load(key: String) async throws -> Data? {
        if let loadError { throw loadError }
        return try await base.load(key: key)
    }

    func save(_ data: Data, key: String) async throws {
        saves += 1
        if let saveError { throw saveError }
        if dropWrites { return }
        try await base.save(data, key: key)
    }

    func delete(key: String) async throws {
        deletes += 1
        try await base.delete(key: key)
    }
}
