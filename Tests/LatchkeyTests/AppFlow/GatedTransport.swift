import Foundation
@testable import Latchkey

/// A transport that can hold requests to one path until the test releases them, so a test can
/// look at a form while its request is in flight.
final class GatedTransport: HTTPTransport, @unchecked Sendable {
    private struct State {
        var heldPath: String?
        var waiting: [CheckedContinuation<Void, Never>] = []
        var heldCount = 0
    }

    let base: any HTTPTransport
    private let state = LockedValue(State())

    init(base: any HTTPTransport) {
        self.base = base
    }

    /// Requests to `path` wait until ``release()``.
    func hold(path: String) { state.withLock { $0.heldPath = path } }

    /// How many requests are waiting.
    var heldCount: Int { state.withLock { $0.heldCount } }

    func release() {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.heldPath = nil
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0.resume() }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if state.withLock({ $0.heldPath == request.url.path }) {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    guard state.heldPath == request.url.path else { return true }
                    state.heldCount += 1
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
        return try await base.send(request)
    }
}
