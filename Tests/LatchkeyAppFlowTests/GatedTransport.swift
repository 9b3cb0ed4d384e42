import Foundation
import Latchkey
import LatchkeyTestSupport

@testable import LatchkeyAppFlow

/// A transport that can hold requests to one path until the test releases them, so a test can
/// look at a form while its request is in flight.
final class GatedTransport: HTTPTransport, Sendable {
    let base: any HTTPTransport
    private let heldPath = Locked<String?>(nil)
    private let gate = Gate()

    init(base: any HTTPTransport) {
        self.base = base
    }

    /// Requests to `path` wait until ``release()``.
    func hold(path: String) {
        heldPath.withLock { $0 = path }
        gate.hold()
    }

    /// How many requests are waiting.
    var heldCount: Int { gate.waitingCount }

    func release() {
        heldPath.withLock { $0 = nil }
        gate.release()
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        if heldPath.withLock({ $0 == request.url.path }) { await gate.pass() }
        return try await base.send(request)
    }
}
