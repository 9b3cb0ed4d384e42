import Foundation
import Latchkey
import LatchkeyTestSupport

@testable import LatchkeyAppFlow

/// A credential store whose reads hang until released: a keychain call that never returns.
actor HangingStore: CredentialStore {
    let base: any CredentialStore
    private var hanging = true
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(base: any CredentialStore) {
        self.base = base
    }

    func release() {
        hanging = false
        for element in waiting { element.resume() }
        waiting = []
    }

    func load(key: String) async throws -> Data? {
        if hanging { await withCheckedContinuation { waiting.append($0) } }
        return try await base.load(key: key)
    }

    func save(_ data: Data, key: String) async throws { try await base.save(data, key: key) }
    func delete(key: String) async throws { try await base.delete(key: key) }
}
