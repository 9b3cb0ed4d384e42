/// Fans ``SessionEvent``s out to any number of `AsyncStream` subscribers.
///
/// A subscriber that arrives after launch first receives `.initialSession` with the current
/// session, so a view that subscribes late still learns where things stand.
final class EventBroadcaster: Sendable {
    private struct State {
        var nextID = 0
        var continuations: [Int: AsyncStream<SessionEvent>.Continuation] = [:]
        var current: Session??  // nil: launch not decided yet
    }

    private let state = LockedValue(State())

    /// A new subscription.
    func subscribe() -> AsyncStream<SessionEvent> {
        let (stream, continuation) = AsyncStream<SessionEvent>.makeStream(bufferingPolicy: .bufferingNewest(256))
        let id = state.withLock { state -> Int in
            state.nextID += 1
            state.continuations[state.nextID] = continuation
            if let current = state.current {
                continuation.yield(.initialSession(current))
            }
            return state.nextID
        }
        continuation.onTermination = { [weak self] _ in
            self?.state.withLock { _ = $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Records the current session for late subscribers, without emitting.
    func setCurrent(_ session: Session?) {
        state.withLock { $0.current = .some(session) }
    }

    /// Sends `event` to every subscriber.
    func emit(_ event: SessionEvent) {
        let continuations = state.withLock { Array($0.continuations.values) }
        for continuation in continuations {
            continuation.yield(event)
        }
    }

    /// Ends every subscription.
    func finish() {
        let continuations = state.withLock { state -> [AsyncStream<SessionEvent>.Continuation] in
            defer { state.continuations.removeAll() }
            return Array(state.continuations.values)
        }
        for element in continuations { element.finish() }
    }

    /// How many subscribers are listening.
    var subscriberCount: Int {
        state.withLock { $0.continuations.count }
    }
}
