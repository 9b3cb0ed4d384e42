import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Logging

@testable import Latchkey

/// A manager over ``TestBackend``, a memory (or faulty) store and a manual clock.
struct Harness {
    let backend = TestBackend()
    let clock = ManualSessionClock()
    let store: FaultyStore
    let marker = MemoryInstallMarker(isSet: true)
    let manager: SessionManager

    init(configure: (inout SessionManagerConfiguration) -> Void = { _ in }) {
        var configuration = SessionManagerConfiguration()
        configure(&configuration)
        store = FaultyStore()
        manager = SessionManager(
            backend: backend, store: store, configuration: configuration, installMarker: marker,
            clock: clock, logger: .quiet)
    }

    /// Puts a session issued `age` seconds ago into the store.
    func seed(age: TimeInterval = 0, expiresIn: TimeInterval = 3600, refresh: String = "refresh-0") async throws -> Session {
        let issued = clock.now().addingTimeInterval(-age)
        let session = sampleSession(issuedAt: issued, expiresIn: expiresIn, refresh: refresh)
        try await storeSession(session, in: store, signedInAt: issued)
        return session
    }

    func stored() async throws -> StoredSession? {
        guard let data = try await store.base.load(key: "latchkey.session") else { return nil }
        return try StoredSession.decode(data)
    }
}
