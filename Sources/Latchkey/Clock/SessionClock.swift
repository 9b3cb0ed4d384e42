import Foundation

/// Wall-clock time and waiting, injected into ``SessionManager`` so tests (and previews) decide
/// what time it is instead of waiting for it.
///
/// Deadlines are wall-clock dates (a token expires at a date), so ``sleep(until:)`` must return
/// once ``now()`` reaches the deadline, even when the device slept meanwhile.
public protocol SessionClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Suspends until `deadline` (returns at once if it has passed).
    /// - Throws: `CancellationError` if the task is cancelled first.
    func sleep(until deadline: Date) async throws
}

/// The real clock.
///
/// It waits on a clock that keeps counting while the device sleeps (`ContinuousClock`; a
/// suspending clock such as `Task.sleep(nanoseconds:)`'s would push every deadline back by the
/// time asleep), in steps of at most ``maximumStep``, and compares the wall clock with the
/// deadline after each step, so a change of the system time is noticed within one step too.
/// A process that iOS suspends runs no timers at all: ``SessionManager/setPhase(_:)`` checks
/// the wall clock again when the app becomes active.
public struct SystemSessionClock: SessionClock {
    /// The longest single wait before the wall clock is looked at again: 60 s.
    public static let maximumStep: TimeInterval = 60

    public init() {}

    public func now() -> Date { Date() }

    public func sleep(until deadline: Date) async throws {
        try await Self.sleep(until: deadline, maximumStep: Self.maximumStep, now: { Date() }) { seconds in
            try await Task.sleep(for: .seconds(seconds), clock: .continuous)
        }
    }

    /// Waits until `now()` reaches `deadline`, in waits (`wait`) of at most `maximumStep`
    /// seconds, looking at `now()` after each.
    static func sleep(
        until deadline: Date, maximumStep: TimeInterval, now: () -> Date,
        wait: (TimeInterval) async throws -> Void
    ) async throws {
        while true {
            try Task.checkCancellation()
            let remaining = deadline.timeIntervalSince(now())
            guard remaining > 0 else { return }
            try await wait(min(remaining, maximumStep))
        }
    }
}
