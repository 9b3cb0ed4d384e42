import Foundation
import NIOConcurrencyHelpers
import Latchkey

/// A clock that moves only when told to, for tests: ``advance(by:)`` wakes every sleeper whose
/// deadline has come, in deadline order.
public final class ManualSessionClock: SessionClock, Sendable {
    private struct Sleeper {
        let id: UInt64
        let deadline: Date
        let continuation: CheckedContinuation<Void, any Error>
    }

    private struct State {
        var now: Date
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
        let due: [Sleeper] = state.withLockedValue { state in
            state.now = state.now.addingTimeInterval(seconds)
            let now = state.now
            let due = state.sleepers.filter { $0.deadline <= now }.sorted { $0.deadline < $1.deadline }
            state.sleepers.removeAll { $0.deadline <= now }
            return due
        }
        due.forEach { $0.continuation.resume() }
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
