import Foundation
import NIOConcurrencyHelpers

/// How much of a store's connection pool is in use, counted by the store around every use of a
/// connection.
///
/// Neither library exposes this itself: GRDB's `DatabasePool` has no public reader statistics,
/// and PostgresNIO's `PostgresClient` reports lease events only to its internal
/// observability delegate (which logs them at debug level). So the stores count the
/// connections their own calls hold — which, since nothing else uses the pool, is the pool's use.
package final class DatabasePoolUsage: Sendable {
    /// A reading of the counters.
    struct Snapshot: Sendable, Equatable {
        /// Connections held by a call right now.
        var inUse: Int
        /// The most connections the pool opens.
        var capacity: Int
        /// Calls that have held a connection, since the store opened.
        var uses: Int
        /// Seconds connections have been held, summed over all of them, since the store opened:
        /// its rate over time divided by ``capacity`` is the pool's utilisation.
        var busySeconds: Double
    }

    private struct State {
        var inUse = 0
        var uses = 0
        var busy: Duration = .zero
    }

    /// The most connections the pool opens.
    let capacity: Int
    private let state = NIOLockedValueBox(State())

    init(capacity: Int) {
        self.capacity = capacity
    }

    /// Counts synchronous `body` (a GRDB database access) as holding one connection while it runs.
    func holdingSynchronously<T>(_ body: () throws -> T) rethrows -> T {
        let start = begin()
        defer { end(start) }
        return try body()
    }

    /// Counts `body` as holding one connection while it runs.
    func holding<T>(_ body: () async throws -> T) async rethrows -> T {
        let start = begin()
        defer { end(start) }
        return try await body()
    }

    private func begin() -> ContinuousClock.Instant {
        state.withLockedValue { $0.inUse += 1 }
        return .now
    }

    private func end(_ start: ContinuousClock.Instant) {
        let held = ContinuousClock.now - start
        state.withLockedValue { state in
            state.inUse -= 1
            state.uses += 1
            state.busy += held
        }
    }

    var snapshot: Snapshot {
        state.withLockedValue { state in
            let seconds = Double(state.busy.components.seconds) + Double(state.busy.components.attoseconds) / 1e18
            return Snapshot(inUse: state.inUse, capacity: capacity, uses: state.uses, busySeconds: seconds)
        }
    }
}
