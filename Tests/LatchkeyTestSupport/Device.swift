import Foundation
import Latchkey
import LatchkeyTesting

/// A keychain that a reboot locks: until the device's first unlock every call answers
/// ``StorageError/locked``, as keychain items do before the first unlock after a reboot. Counts
/// every delete attempt, so a test can say "nothing was wiped".
package actor LockableStore: CredentialStore {
    package let base = MemoryCredentialStore()
    private var locked = false
    /// Every `delete(key:)` call, locked or not.
    package private(set) var deleteAttempts = 0

    package init() {}

    package func setLocked(_ locked: Bool) { self.locked = locked }

    /// What is stored under `key`, whether locked or not (the test looks behind the lock).
    package func peek(key: String) async -> Data? {
        try? await base.load(key: key)
    }

    package func load(key: String) async throws -> Data? {
        if locked { throw StorageError.locked }
        return try await base.load(key: key)
    }

    package func save(_ data: Data, key: String) async throws {
        if locked { throw StorageError.locked }
        try await base.save(data, key: key)
    }

    package func delete(key: String) async throws {
        deleteAttempts += 1
        if locked { throw StorageError.locked }
        try await base.delete(key: key)
    }
}

/// Whether protected data can be read, as the test says: `false` after a "reboot", until the
/// "first unlock".
package final class ScriptedProtectedData: ProtectedDataAvailability {
    private let available: Locked<Bool>

    package init(available: Bool = true) {
        self.available = Locked(available)
    }

    package func setAvailable(_ available: Bool) { self.available.withLock { $0 = available } }

    package func isAvailable() -> Bool { available.withLock { $0 } }
}

/// A device's clock: wall time the test moves with ``advance(by:)`` (waking the timers that
/// are due, like `ManualSessionClock`), and ``sleepDevice(for:)``: the device asleep, or the app
/// suspended. The wall clock jumps, but timers wait on a clock that did not count the time
/// asleep — as a suspended monotonic clock does — so none of them wakes.
package final class SleepingDeviceClock: SessionClock {
    /// What time it is.
    private let wall: ManualSessionClock
    /// What timers wait on: it does not move while the device sleeps.
    private let monotonic: ManualSessionClock

    package init(_ start: Date = Date()) {
        wall = ManualSessionClock(start)
        monotonic = ManualSessionClock(start)
    }

    package func now() -> Date { wall.now() }

    /// Waits until the monotonic clock has moved by as much as the wall clock must.
    package func sleep(until deadline: Date) async throws {
        let wait = deadline.timeIntervalSince(wall.now())
        try await monotonic.sleep(until: monotonic.now().addingTimeInterval(max(wait, 0)))
    }

    /// Time passes with the device awake: every clock moves, due timers wake.
    package func advance(by seconds: TimeInterval) {
        wall.advance(by: seconds)
        monotonic.advance(by: seconds)
    }

    /// The device sleeps for `seconds`: the wall clock moves, timers do not wake.
    package func sleepDevice(for seconds: TimeInterval) {
        wall.advance(by: seconds)
    }

    /// How many timers are waiting.
    package var sleeperCount: Int { monotonic.sleeperCount }
}
