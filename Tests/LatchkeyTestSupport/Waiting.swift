import Foundation

/// A value guarded by a lock, for test doubles shared with synchronous code.
package final class Locked<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) {
        self.value = value
    }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { try body(&value) }
    }
}

/// Holds whoever passes while the test says so: a request on the wire, a prompt on screen, a
/// refresh at the server.
package final class Gate: Sendable {
    private struct State {
        var holding = false
        var waiting: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Locked(State())

    package init() {}

    /// From now on, ``pass()`` waits until ``release()``.
    package func hold() { state.withLock { $0.holding = true } }

    /// Lets everyone waiting through, and everyone after them.
    package func release() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.holding = false
            defer { state.waiting = [] }
            return state.waiting
        }
        for element in waiting { element.resume() }
    }

    /// How many are waiting now.
    package var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Returns at once, or once released while the gate holds.
    package func pass() async {
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state -> Bool in
                guard state.holding else { return true }
                state.waiting.append(continuation)
                return false
            }
            if resumeNow { continuation.resume() }
        }
    }
}

/// Polls `condition` (real time, backing off from 2 ms to 100 ms) until it holds or `timeout` passes (30 s by default: under CI
/// load 5 s is not enough; a passing test returns as soon as it holds). The condition runs in
/// the caller's isolation, so a main-actor test can read its models directly.
package func eventually(
    timeout: TimeInterval = 30, isolation: isolated (any Actor)? = #isolation, _ condition: () async -> Bool
) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    // 2 ms at first, backing off to 100 ms: a quick condition is seen at once, and a slow one
    // (a database read, a request, a process) does not compete with what it waits for.
    var interval: UInt64 = 2_000_000
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: interval)
        interval = min(interval * 2, 100_000_000)
    }
    return await condition()
}
