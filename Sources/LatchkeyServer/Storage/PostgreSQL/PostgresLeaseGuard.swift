import Foundation
import NIOConcurrencyHelpers
import PostgresNIO

/// Runs one store call on a pooled PostgreSQL connection so that the caller (an HTTP request)
/// never waits without bound, whatever the database or the network does.
///
/// Two bounds:
/// - **Lease timeout**: while the database is unreachable the pool queues lease requests (and
///   keeps reconnecting in the background). After `leaseTimeout` without a connection the call
///   fails with ``LeaseTimeout`` (a 503 for clients). The withdrawn request can no longer run
///   its work later, even if the pool hands it a connection after all.
/// - **Stall timeout**: a leased connection that has not finished the work after `stallTimeout`
///   is closed (PostgreSQL rolls back an uncommitted transaction on it) and the call fails with
///   ``StalledConnection``. This covers a connection that dies exactly as work is sent to it,
///   where the driver may never answer.
///
/// The work runs in its own task, so an abandoned attempt does not hold the caller, nor the
/// server's graceful shutdown, which waits for in-flight requests.
struct PostgresLeaseGuard: Sendable {
    let client: PostgresClient
    let leaseTimeout: Duration
    let stallTimeout: Duration

    func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let attempt = LeaseAttempt<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                attempt.start(continuation)
                let work = Task {
                    do {
                        let value = try await client.withConnection { connection in
                            // A connection closed while idle in the pool is not used: the
                            // driver could drop work written to it without answering.
                            guard !connection.isClosed else { throw ClosedBeforeUse() }
                            guard attempt.claim(connection) else { throw LeaseTimeout() }
                            return try await body(connection)
                        }
                        attempt.finish(.success(value))
                    } catch {
                        attempt.finish(.failure(error))
                    }
                }
                let watchdog = Task {
                    guard (try? await Task.sleep(for: leaseTimeout)) != nil else { return }
                    if attempt.abandonIfWaiting() {
                        work.cancel()
                        attempt.finish(.failure(LeaseTimeout()))
                        return
                    }
                    guard (try? await Task.sleep(for: stallTimeout)) != nil else { return }
                    attempt.abandonStalled()
                }
                attempt.track(work: work, watchdog: watchdog)
            }
        } onCancel: {
            attempt.cancel()
        }
    }
}

/// No pooled connection became available within the lease timeout.
struct LeaseTimeout: Error {}

/// A leased connection stopped answering; it was closed.
struct StalledConnection: Error {}

/// The pool handed out a connection that had already closed.
struct ClosedBeforeUse: Error {}

/// The shared state of one ``PostgresLeaseGuard/run(_:)`` call: who may still act, and the
/// caller's continuation, resumed exactly once.
final class LeaseAttempt<T: Sendable>: Sendable {
    private enum Phase {
        case waiting
        case leased(PostgresConnection)
        case abandoned
    }

    private struct State {
        var phase = Phase.waiting
        var continuation: CheckedContinuation<T, any Error>?
        var finished = false
        var work: Task<Void, Never>?
        var watchdog: Task<Void, Never>?
    }

    private let state = NIOLockedValueBox(State())

    func start(_ continuation: CheckedContinuation<T, any Error>) {
        let cancelledAlready = state.withLockedValue { state in
            if state.finished { return true }
            state.continuation = continuation
            return false
        }
        if cancelledAlready { continuation.resume(throwing: CancellationError()) }
    }

    func track(work: Task<Void, Never>, watchdog: Task<Void, Never>) {
        let finished = state.withLockedValue { state in
            state.work = work
            state.watchdog = watchdog
            return state.finished
        }
        if finished { watchdog.cancel() }
    }

    /// The pool handed over `connection`: the work may run unless the attempt was abandoned.
    func claim(_ connection: PostgresConnection) -> Bool {
        state.withLockedValue { state in
            guard case .waiting = state.phase else { return false }
            state.phase = .leased(connection)
            return true
        }
    }

    /// Gives up if no connection was leased yet; `true` when it did.
    func abandonIfWaiting() -> Bool {
        state.withLockedValue { state in
            guard case .waiting = state.phase else { return false }
            state.phase = .abandoned
            return true
        }
    }

    /// Closes a leased connection that has not finished its work, and fails the call.
    func abandonStalled() {
        let connection: PostgresConnection? = state.withLockedValue { state in
            guard !state.finished, case .leased(let connection) = state.phase else { return nil }
            return connection
        }
        guard let connection else { return }
        let _: EventLoopFuture<Void> = connection.close()
        finish(.failure(StalledConnection()))
    }

    /// The caller's task was cancelled: stop waiting.
    func cancel() {
        let work = state.withLockedValue { state in
            if case .waiting = state.phase { state.phase = .abandoned }
            return state.work
        }
        work?.cancel()
        finish(.failure(CancellationError()))
    }

    /// Resumes the caller with `result`, unless it was resumed already.
    func finish(_ result: Result<T, any Error>) {
        let (continuation, watchdog) = state.withLockedValue { state -> (CheckedContinuation<T, any Error>?, Task<Void, Never>?) in
            guard !state.finished else { return (nil, nil) }
            state.finished = true
            defer { state.continuation = nil }
            return (state.continuation, state.watchdog)
        }
        watchdog?.cancel()
        continuation?.resume(with: result)
    }
}
