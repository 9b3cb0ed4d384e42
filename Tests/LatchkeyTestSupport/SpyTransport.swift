import Foundation
import Latchkey

/// The real URLSession transport plus a tally of requests by path, and switches to act offline
/// or to lose a response: the network conditions the anchors' failures need.
package final class SpyTransport: HTTPTransport, Sendable {
    struct State {
        var counts: [String: Int] = [:]
        var offline = false
        var cancelNextRefreshes = 0
    }

    let base = URLSessionTransport()
    let state = Locked(State())

    package init() {}

    package func count(_ path: String) -> Int { state.withLock { $0.counts[path, default: 0] } }
    package var total: Int { state.withLock { $0.counts.values.reduce(0, +) } }
    package func setOffline(_ offline: Bool) { state.withLock { $0.offline = offline } }

    /// The next `count` refreshes reach the server, which rotates the token, but the response
    /// is lost as if the request were cancelled mid-flight.
    package func cancelAfterSending(refreshes count: Int) { state.withLock { $0.cancelNextRefreshes = count } }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let path = request.url.path
        let (offline, cancel) = state.withLock { state -> (Bool, Bool) in
            if state.offline { return (true, false) }
            state.counts[path, default: 0] += 1
            let isRefresh = request.url.query?.contains("grant_type=refresh_token") == true
            if isRefresh, state.cancelNextRefreshes > 0 {
                state.cancelNextRefreshes -= 1
                return (false, true)
            }
            return (false, false)
        }
        if offline { throw BackendError.transport(.offline) }
        let response = try await base.send(request)
        if cancel { throw BackendError.transport(.cancelled) }
        return response
    }
}
