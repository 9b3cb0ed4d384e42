import Foundation
import Latchkey
import Logging

/// A fresh temporary directory, removed by the caller with `removeDirectory`.
package func temporaryDirectory(_ name: String = "latchkey") -> URL {
    let url = FileManager.default.temporaryDirectory
        .appendingPathComponent("\(name)-\(UUID().uuidString)", isDirectory: true)
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

package func removeDirectory(_ url: URL) {
    try? FileManager.default.removeItem(at: url)
}

/// An address no other test uses.
package func uniqueEmail(_ prefix: String = "user") -> String {
    "\(prefix)-\(UUID().uuidString.prefix(8).lowercased())@example.com"
}

/// A session that expires `expiresIn` seconds after `issuedAt`.
package func sampleSession(
    issuedAt: Date, expiresIn: TimeInterval = 3600, access: String = "access-0", refresh: String = "refresh-0",
    userID: String = "6f1c0a62-5b0b-4f4e-9a3e-0d9d2b8f1e11"
) -> Session {
    Session(
        accessToken: access, refreshToken: refresh, expiresIn: expiresIn,
        expiresAt: issuedAt.addingTimeInterval(expiresIn), user: User(id: userID, email: "ada@example.com"))
}

/// Collects events from a manager's stream in the background.
package final class EventRecorder: Sendable {
    private let events = Locked<[SessionEvent]>([])
    private let task: Locked<Task<Void, Never>?> = Locked(nil)

    package init(_ manager: SessionManager) {
        let stream = manager.events()
        let events = self.events
        task.withLock {
            $0 = Task {
                for await event in stream { events.withLock { $0.append(event) } }
            }
        }
    }

    package var all: [SessionEvent] { events.withLock { $0 } }

    /// Waits (real time, up to `timeout`) until `predicate` holds for the recorded events.
    package func wait(timeout: TimeInterval = 30, until predicate: ([SessionEvent]) -> Bool) async -> Bool {
        await eventually(timeout: timeout) { predicate(all) }
    }

    package func cancel() { task.withLock { $0?.cancel() } }
}

extension Logger {
    /// A logger that discards everything (tests assert on behaviour, not log lines).
    package static let quiet = Logger(label: "latchkey.tests", factory: { _ in SwiftLogNoOpLogHandler() })
}

extension SessionEvent {
    package var isTokenRefreshed: Bool { if case .tokenRefreshed = self { true } else { false } }
    package var isSignedIn: Bool { if case .signedIn = self { true } else { false } }
    package var isInitialSession: Bool { if case .initialSession = self { true } else { false } }
    package var isSessionExpiring: Bool { if case .sessionExpiring = self { true } else { false } }
}
