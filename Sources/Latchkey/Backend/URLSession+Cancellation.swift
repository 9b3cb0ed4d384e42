import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension URLSession {
    /// `data(for:)` that any task may cancel safely, on every platform.
    ///
    /// On Apple platforms this is `data(for:)`. On Linux, swift-corelibs-foundation (Swift 6.3
    /// included) must not cancel a data task from a Swift task's cancellation: its `cancel()`
    /// waits for the session's queue while the Swift runtime holds the task's status lock, which
    /// deadlocks against a response arriving at that moment (swift-corelibs-foundation#5412),
    /// and cancelling a data task that has just failed stops the process on an assertion
    /// ("Trying to access a behaviour for a task that in not in the registry"). So here
    /// cancellation never touches the data task: the wait ends at once with
    /// `CancellationError`, and the request finishes on its own, bounded by its timeout, its
    /// result dropped.
    package func cancellableData(for request: URLRequest) async throws -> (Data, URLResponse) {
        #if canImport(FoundationNetworking)
        let outcome = RequestOutcome()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                guard outcome.await(continuation) else { return }
                let task = dataTask(with: request) { data, response, error in
                    if let response, error == nil {
                        outcome.finish(.success((data ?? Data(), response)))
                    } else {
                        outcome.finish(.failure(error ?? URLError(.badServerResponse)))
                    }
                }
                task.resume()
            }
        } onCancel: {
            outcome.finish(.failure(CancellationError()))
        }
        #else
        return try await data(for: request)
        #endif
    }
}

#if canImport(FoundationNetworking)
/// The first outcome of a request (its response, its error or the caller's cancellation),
/// delivered once to whoever awaits it, whichever of the two comes first.
private final class RequestOutcome: @unchecked Sendable {
    typealias Value = (Data, URLResponse)
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Value, any Error>?
    private var result: Result<Value, any Error>?

    /// Installs the waiting continuation; `false` (after resuming it) when the outcome is
    /// already known, so the request need not start.
    func await(_ continuation: CheckedContinuation<Value, any Error>) -> Bool {
        let known: Result<Value, any Error>? = lock.withLock {
            if let result { return result }
            self.continuation = continuation
            return nil
        }
        guard let known else { return true }
        continuation.resume(with: known)
        return false
    }

    /// Records `result` unless an outcome is already known, and resumes the waiter if any.
    func finish(_ result: Result<Value, any Error>) {
        let waiter: CheckedContinuation<Value, any Error>? = lock.withLock {
            guard self.result == nil else { return nil }
            self.result = result
            defer { continuation = nil }
            return continuation
        }
        waiter?.resume(with: result)
    }
}
#endif
