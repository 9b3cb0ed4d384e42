import Foundation

/// How a race between an operation and a deadline ended.
enum DeadlineOutcome<Value: Sendable>: Sendable {
    case value(Value)
    case failure(any Error)
    case timedOut
}

/// Runs `operation` and returns its outcome, or `.timedOut` once `clock` reaches `deadline`,
/// whichever comes first. On time-out the operation is **not** cancelled: a refresh that the
/// launch stopped waiting for finishes in the background and publishes its result.
func race<Value: Sendable>(
    _ operation: @escaping @Sendable () async throws -> Value,
    deadline: Date, clock: any SessionClock
) async -> DeadlineOutcome<Value> {
    let resumed = LockedValue(false)
    let timer = LockedValue<Task<Void, Never>?>(nil)
    let outcome: DeadlineOutcome<Value> = await withCheckedContinuation { continuation in
        @Sendable func finish(_ outcome: DeadlineOutcome<Value>) {
            let first = resumed.withLock { done -> Bool in
                defer { done = true }
                return !done
            }
            if first { continuation.resume(returning: outcome) }
        }
        Task {
            do {
                finish(.value(try await operation()))
            } catch {
                finish(.failure(error))
            }
        }
        let sleeper = Task {
            do {
                try await clock.sleep(until: deadline)
                finish(.timedOut)
            } catch {}
        }
        timer.withLock { $0 = sleeper }
    }
    timer.withLock { $0?.cancel() }
    return outcome
}
