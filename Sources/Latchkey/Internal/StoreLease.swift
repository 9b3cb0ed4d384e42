import Foundation

/// The cross-process lock, held inside a ``BackgroundActivity`` assertion.
///
/// Taken by ``SessionManager/lockStore(_:)``: the assertion first, then the file lock, so the
/// lock is never held without the assertion. It is given up when it has been held for
/// ``SessionManagerConfiguration/crossProcessLockMaximumHold`` (``revoke()``): a store write
/// running at that moment finishes first (writes take milliseconds), then the file lock is
/// released, and only then the assertion ends. When the system is about to suspend the process
/// (``expire(waitingAtMost:)``), the expiration handler itself waits, briefly, for that write,
/// and returns only once the lock is released and the assertion ended: a handler that returned
/// with the lock held would leave it held across the suspension, and the system kills such a
/// process (`0xdead10cc`). After either, ``isHeld`` is `false`: whoever still wants to write
/// must take the lock again.
final class StoreLease: Sendable {
    private struct State {
        var handle: FileLock.Handle?
        var assertion: (any BackgroundActivityAssertion)?
        var holdTimer: Task<Void, Never>?
        /// Store writes running under the lock.
        var writers = 0
        /// The file lock is still being waited for.
        var acquiring = true
        /// The lock is to be given up (expiration, hold bound, the normal end).
        var revoked = false
        var finished = false
        /// Signalled when the last write ends (or the wait for the lock does), for an
        /// expiration handler waiting for it.
        var drained: DispatchSemaphore?

        /// Whether nothing runs under the lock, or waits for it.
        var isIdle: Bool { writers == 0 && !acquiring }
        /// Whether the lock can be released and the assertion ended now.
        var canFinish: Bool { revoked && isIdle && !finished }

        /// The waiting expiration handler, once nothing runs under the lock any more.
        mutating func takeDrained() -> DispatchSemaphore? {
            guard isIdle else { return nil }
            defer { drained = nil }
            return drained
        }
    }

    private let state = LockedValue(State())

    init() {}

    /// Whether the lock is held and not being given up.
    var isHeld: Bool {
        state.withLock { !$0.revoked && $0.handle != nil }
    }

    /// Whether the lease is being given up — while waiting for the lock, stop waiting.
    var isRevoked: Bool {
        state.withLock { $0.revoked }
    }

    /// Records the assertion the lock will be held in. Returns `false`, and ends the assertion
    /// at once, when the lease was already given up: the system's expiration handler can run
    /// before the call that began the assertion returns it, and an assertion nobody ends gets
    /// the process terminated.
    @discardableResult
    func attach(_ assertion: any BackgroundActivityAssertion) -> Bool {
        let kept = state.withLock { state -> Bool in
            guard !state.revoked, !state.finished else { return false }
            state.assertion = assertion
            return true
        }
        if !kept { assertion.end() }
        return kept
    }

    /// Records the lock once taken. Returns `false`, and releases the lock and ends the
    /// assertion at once, if the lease was revoked while the lock was being taken.
    func attach(_ handle: FileLock.Handle) -> Bool {
        let (kept, drained) = state.withLock { state -> (Bool, DispatchSemaphore?) in
            state.acquiring = false
            guard !state.revoked, !state.finished else { return (false, state.takeDrained()) }
            state.handle = handle
            return (true, state.takeDrained())
        }
        drained?.signal()
        if !kept {
            handle.release()
            finishIfPossible()
        }
        return kept
    }

    /// The lock could not be taken: end the assertion.
    func abandon() {
        let drained = state.withLock { state -> DispatchSemaphore? in
            state.acquiring = false
            state.revoked = true
            return state.takeDrained()
        }
        drained?.signal()
        finishIfPossible()
    }

    /// Revokes the lease after `seconds` on `clock`, if it is still held then.
    func bound(by seconds: TimeInterval, clock: any SessionClock) {
        let deadline = clock.now().addingTimeInterval(seconds)
        let timer = Task { [weak self] in
            guard (try? await clock.sleep(until: deadline)) != nil else { return }
            self?.revoke()
        }
        let cancel = state.withLock { state -> Bool in
            if state.finished { return true }
            state.holdTimer = timer
            return false
        }
        if cancel { timer.cancel() }
    }

    /// Marks the start of a store write under the lock, so that a revocation waits for it.
    /// Pair a `true` answer with ``endWrite()``.
    /// - Returns: `false` when the lock is no longer held.
    func beginWrite() -> Bool {
        state.withLock { state -> Bool in
            guard !state.revoked, state.handle != nil else { return false }
            state.writers += 1
            return true
        }
    }

    /// Ends a write begun with ``beginWrite()``; completes a revocation that waited for it.
    func endWrite() {
        let drained = state.withLock { state -> DispatchSemaphore? in
            state.writers -= 1
            return state.takeDrained()
        }
        drained?.signal()
        finishIfPossible()
    }

    /// Gives the lock up now, or as soon as the running write (or the wait for the lock) ends:
    /// the lock was held too long.
    func revoke() {
        state.withLock { $0.revoked = true }
        finishIfPossible()
    }

    /// The system is about to suspend the process: gives the lock up and ends the assertion
    /// before returning. A store write running under the lock (or the wait for the lock) is
    /// waited for — blocking the calling thread, as an expiration handler must — for at most
    /// `wait` seconds; after that the lock is released and the assertion ended anyway, and the
    /// write finishes without the lock's protection rather than the process being killed for
    /// holding it while suspended.
    func expire(waitingAtMost wait: TimeInterval) {
        let drained = state.withLock { state -> DispatchSemaphore? in
            state.revoked = true
            guard !state.finished, !state.isIdle else { return nil }
            let semaphore = state.drained ?? DispatchSemaphore(value: 0)
            state.drained = semaphore
            return semaphore
        }
        if let drained, drained.wait(timeout: .now() + max(0, wait)) == .timedOut {
            state.withLock { $0.drained = nil }
        }
        finish()
    }

    /// Releases the lock and ends the assertion: the normal end. Calling it again does nothing.
    func release() {
        revoke()
    }

    /// Releases the file lock, then ends the assertion (in that order), once, when nothing
    /// needs the lock any more.
    private func finishIfPossible() {
        finish(onlyIfIdle: true)
    }

    /// Releases the file lock, then ends the assertion, once: when nothing needs the lock any
    /// more, or — `onlyIfIdle` false, an expiration — whatever still runs.
    private func finish(onlyIfIdle: Bool = false) {
        let parts = state.withLock { state -> (FileLock.Handle?, (any BackgroundActivityAssertion)?, Task<Void, Never>?)? in
            guard onlyIfIdle ? state.canFinish : (state.revoked && !state.finished) else { return nil }
            state.finished = true
            defer {
                state.handle = nil
                state.assertion = nil
                state.holdTimer = nil
            }
            return (state.handle, state.assertion, state.holdTimer)
        }
        guard let parts else { return }
        let (handle, assertion, timer) = parts
        timer?.cancel()
        handle?.release()
        assertion?.end()
    }
}
