import Foundation
import Logging
@testable import Latchkey

/// A fresh temporary directory, removed by the caller with `removeDirectory`.
func temporaryDirectory(_ name: String = "latchkey") -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("\(name)-\(UUID().uuidString)", isDirectory: true)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

func removeDirectory(_ url: URL) {
    try? FileManager.default.removeItem(at: url)
}

/// Stores `session` as ``SessionManager`` would have after a sign-in at `signedInAt`.
func storeSession(
    _ session: Session, in store: any CredentialStore, key: String = "latchkey.session",
    signedInAt: Date, lastServerContact: Date? = nil
) async throws {
    let record = StoredSession(session: session, signedInAt: signedInAt, lastServerContact: lastServerContact ?? signedInAt)
    try await store.save(try record.encoded(), key: key)
}

/// A session that expires `expiresIn` seconds after `issuedAt`.
func sampleSession(
    issuedAt: Date, expiresIn: TimeInterval = 3600, access: String = "access-0", refresh: String = "refresh-0",
    userID: String = "6f1c0a62-5b0b-4f4e-9a3e-0d9d2b8f1e11"
) -> Session {
    Session(accessToken: access, refreshToken: refresh, expiresIn: expiresIn,
            expiresAt: issuedAt.addingTimeInterval(expiresIn), user: User(id: userID, email: "ada@example.com"))
}

/// Collects events from a manager's stream in the background.
final class EventRecorder: Sendable {
    private let events = LockedValue<[SessionEvent]>([])
    private let task: LockedValue<Task<Void, Never>?> = LockedValue(nil)

    init(_ manager: SessionManager) {
        let stream = manager.events()
        let events = self.events
        task.withLock {
            $0 = Task {
                for await event in stream { events.withLock { $0.append(event) } }
            }
        }
    }

    var all: [SessionEvent] { events.withLock { $0 } }

    /// Waits (real time, up to `timeout`) until `predicate` holds for the recorded events.
    func wait(timeout: TimeInterval = 30, until predicate: ([SessionEvent]) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if predicate(all) { return true }
            try? await Task.sleep(nanoseconds: 2_000_000)
        }
        return predicate(all)
    }

    func cancel() { task.withLock { $0?.cancel() } }
}

/// Polls `condition` (real time) until it holds or `timeout` passes.
func eventually(timeout: TimeInterval = 30, _ condition: () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: 2_000_000)
    }
    return await condition()
}

extension Logger {
    /// A logger that discards everything (tests assert on behaviour, not log lines).
    static let quiet = Logger(label: "latchkey.tests", factory: { _ in SwiftLogNoOpLogHandler() })
}

extension SessionEvent {
    var isTokenRefreshed: Bool { if case .tokenRefreshed = self { true } else { false } }
    var isSignedIn: Bool { if case .signedIn = self { true } else { false } }
    var isInitialSession: Bool { if case .initialSession = self { true } else { false } }
    var isSessionExpiring: Bool { if case .sessionExpiring = self { true } else { false } }
}
