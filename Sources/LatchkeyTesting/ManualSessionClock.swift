import Foundation
import Latchkey
import NIOConcurrencyHelpers

/// A clock that moves only when told to, for tests: ``advance(by:)`` wakes every sleeper whose
/// deadline has come, in deadline order.
///
/// It is two clocks, as on a device: the wall clock (``now()``), which ``setWallClock(to:)``
/// can also move backwards or forwards as a user changing the system time does, and the time
/// that really passed (``continuous``, a `Clock` like `ContinuousClock`), which only
/// ``advance(by:)`` moves.
public final class ManualSessionClock: SessionClock, Sendable {
    private struct Sleeper {
        let id: UInt64
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
        var elapsed: Duration = .zero
        var nextID: UInt64 = 0
        var sleepers: [Sleeper] = []
    }

    private let state: NIOLockedValueBox<State>

    /// Starts the clock at `start`.
    public init(_ start: Date = Date(timeIntervalSince1970: 1_750_000_000)) {
        state = NIOLockedValueBox(State(now: start))
    }

    public func now() -> Date {
        state.withLockedValue { $0.now }
    }

    /// How many tasks are sleeping on this clock.
    public var sleeperCount: Int {
        state.withLockedValue { $0.sleepers.count }
    }

    /// Moves time forward by `seconds` and wakes the sleepers that are due.
    public func advance(by seconds: TimeInterval) {
        move { state in
            state.now = state.now.addingTimeInterval(seconds)
            state.elapsed += .seconds(seconds)
        }
    }

    /// Sets the wall clock to `date`, as a user changing the system time does: ``continuous``
    /// does not move, and sleepers whose deadline `date` reaches wake.
    public func setWallClock(to date: Date) {
        move { $0.now = date }
    }

    /// Changes the time with `change`, then wakes the sleepers that are due, in deadline order.
    private func move(_ change: (inout State) -> Void) {
        let due: [Sleeper] = state.withLockedValue { state in
            change(&state)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        for element in due { element.continuation.resume() }
    }

    /// The time that really passed on this clock: moved by ``advance(by:)`` only.
    public var continuous: Continuous { Continuous(clock: self) }

    /// The time ``advance(by:)`` has moved the clock by, since it was made.
    var elapsed: Duration { state.withLockedValue { $0.elapsed } }

    /// A `Clock` of the time that really passed on a ``ManualSessionClock``, for code that
    /// measures durations with `ContinuousClock` (so that changing the system time cannot
    /// shorten them).
    public struct Continuous: Clock {
        /// A point on the clock: the time advanced since the manual clock was made.
        public struct Instant: InstantProtocol {
            public var offset: Duration

            public func advanced(by duration: Duration) -> Instant { Instant(offset: offset + duration) }
            public func duration(to other: Instant) -> Duration { other.offset - offset }
            public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.offset < rhs.offset }
        }

        let clock: ManualSessionClock

        public var now: Instant { Instant(offset: clock.elapsed) }
        public var minimumResolution: Duration { .zero }

        /// Waits until ``ManualSessionClock/advance(by:)`` has moved the clock to `deadline`
        /// (a sleeper on the wall clock at the matching date; do not move the wall clock with
        /// ``ManualSessionClock/setWallClock(to:)`` while one waits).
        public func sleep(until deadline: Instant, tolerance: Duration?) async throws {
            let remaining = now.duration(to: deadline)
            guard remaining > .zero else { return }
            let seconds = Double(remaining.components.seconds) + Double(remaining.components.attoseconds) / 1e18
            try await clock.sleep(until: clock.now().addingTimeInterval(seconds))
        }
    }

    public func sleep(until deadline: Date) async throws {
        try Task.checkCancellation()
        let id = state.withLockedValue { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let resumeNow: Bool = state.withLockedValue { state in
                    if deadline <= state.now { return true }
                    state.sleepers.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return false
                }
                if resumeNow {
                    continuation.resume()
                } else if Task.isCancelled {
                    // Cancelled before the sleeper was registered: the handler found nothing.
                    let sleeper = state.withLockedValue { state -> Sleeper? in
                        guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                        return state.sleepers.remove(at: index)
                    }
                    sleeper?.continuation.resume(throwing: CancellationError())
                }
            }
        } onCancel: {
            let cancelled = state.withLockedValue { state -> Sleeper? in
                guard let index = state.sleepers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.sleepers.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }
}
