import Foundation

/// Wall-clock time and waiting, injected into ``SessionManager`` so tests (and previews) decide
/// what time it is instead of waiting for it.
public protocol SessionClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Suspends until `deadline` (returns at once if it has passed).
    /// - Throws: `CancellationError` if the task is cancelled first.
    func sleep(until deadline: Date) async throws
}

/// The real clock.
public struct SystemSessionClock: SessionClock {
    public init() {}

    public func now() -> Date { Date() }

    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        guard seconds > 0 else { return }
        try await Task.sleep(nanoseconds: UInt64(min(seconds, 1e9) * 1e9))
    }
}
