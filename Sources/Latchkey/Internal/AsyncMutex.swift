/// A first-in, first-out lock that suspends instead of blocking.
///
/// ``SessionManager`` is an actor, but actors are re-entrant: between an `await` and the next
/// line another call may change the session. Every "decide, write the store, publish" sequence
/// (commit a refreshed session, sign in, sign out) holds this lock, so a refresh finishing during
/// a sign-out can never write a ghost session back into the store.
final class AsyncMutex: Sendable {
    private struct State {
        var isLocked = false
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = LockedValue(State())

    init() {}

    /// Waits for the lock. Pair every call with exactly one ``unlock()``.
    func lock() async {
        let acquired = state.withLock { state -> Bool in
            if state.isLocked { return false }
            state.isLocked = true
            return true
        }
        if acquired { return }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let handedOver = state.withLock { state -> Bool in
                if !state.isLocked {
                    state.isLocked = true
                    return true
                }
                state.waiters.append(continuation)
                return false
            }
            if handedOver { continuation.resume() }
        }
    }

    /// Releases the lock, handing it to the longest waiter if there is one.
    func unlock() {
        let next = state.withLock { state -> CheckedContinuation<Void, Never>? in
            if state.waiters.isEmpty {
                state.isLocked = false
                return nil
            }
            return state.waiters.removeFirst()
        }
        next?.resume()
    }
}
