import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Calls an HTTP hook as GoTrue does: a JSON `POST` signed with Standard Webhooks, answered
/// within 5 seconds, tried up to 3 times (again after a connection failure, 2 seconds later,
/// or at once after a 429 or 503 carrying `Retry-After`), at most 200 KB read back. (A hook
/// refusing connections is usually `hook_timeout`: AsyncHTTPClient keeps trying to connect
/// until the deadline.)
///
/// Its failures are GoTrue's hook errors: a hook's own `{"error": {"http_code", "message"}}`
/// becomes the client's error, a timeout 422 `hook_timeout`, an unreachable hook 422
/// `hook_timeout_after_retry`, a non-JSON answer 400 `hook_payload_invalid_content_type`, any
/// other status 500. Neither the payload nor the secret is ever logged.
struct HTTPHookDispatcher: Sendable {
    let endpoint: HookEndpoint
    let clock: any ServerClock
    let logger: Logger
    var timeout: Duration = .seconds(5)
    var attempts = 3
    var backoff: Duration = .seconds(2)
    static let responseLimit = 200 * 1024

    /// The hook's answer to `payload`, or `nil` when it answered 204 (nothing to say).
    func dispatch(_ payload: Data) async throws(AuthError) -> Data? {
        let deadline = ContinuousClock.now + timeout
        for attempt in 0..<attempts {
            if attempt > 0 { logger.info("auth hook: attempt \(attempt + 1)", metadata: ["host": "\(endpoint.url.host ?? "?")"]) }
            let outcome: Outcome
            do {
                outcome = try await send(payload, deadline: deadline)
            } catch HookCallError.timedOut {
                throw AuthError.hookTimeout(seconds: timeout)
            } catch {
                logger.warning("auth hook unreachable", metadata: ["host": "\(endpoint.url.host ?? "?")", "error": "\(type(of: error))"])
                guard attempt < attempts - 1 else { throw AuthError.hookUnreachable }
                guard ContinuousClock.now + backoff < deadline else { throw AuthError.hookTimeout(seconds: timeout) }
                try? await Task.sleep(for: backoff)
                continue
            }
            switch outcome.status {
            case 204:
                return nil
            case 200, 202:
                return try Self.checked(outcome)
            case 429, 503:
                if outcome.retryAfter { continue }
                throw AuthError.hookFailed("Service currently unavailable due to hook")
            case 400:
                throw AuthError.hookFailed("Invalid payload sent to hook")
            case 401:
                throw AuthError.hookFailed("Hook requires authorization token")
            default:
                throw AuthError.hookFailed("Unexpected status code returned from hook: \(outcome.status)")
            }
        }
        throw AuthError.hookFailed("Service currently unavailable due to hook")
    }

    /// A 200 or 202 answer's body, once it is JSON, small enough and not a hook error.
    static func checked(_ outcome: Outcome) throws(AuthError) -> Data {
        guard let contentType = outcome.contentType, !contentType.isEmpty else {
            throw AuthError.hookContentType("Invalid Content-Type: Missing Content-Type header")
        }
        let mediaType = contentType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        guard mediaType == "application/json" else {
            throw AuthError.hookContentType("Invalid JSON response. Received content-type: \(contentType.prefix(100))")
        }
        guard !outcome.truncated else { throw AuthError.hookPayloadTooLarge(limit: responseLimit) }
        try HookError.check(outcome.body)
        return outcome.body
    }

    /// What one attempt brought back.
    struct Outcome: Sendable {
        var status: Int
        var contentType: String?
        var retryAfter: Bool
        var body: Data
        var truncated: Bool
    }

    private enum HookCallError: Error { case timedOut }

    private func send(_ payload: Data, deadline: ContinuousClock.Instant) async throws -> Outcome {
        let left = deadline - ContinuousClock.now
        guard left > .zero else { throw HookCallError.timedOut }
        let nanoseconds = left.components.seconds * 1_000_000_000 + left.components.attoseconds / 1_000_000_000
        var request = HTTPClientRequest(url: endpoint.url.absoluteString)
        request.method = .POST
        request.headers.add(name: "Content-Type", value: "application/json")
        request.headers.add(name: "Accept-Encoding", value: "identity")
        request.headers.add(name: "User-Agent", value: "Latchkey")
        for (name, value) in WebhookSignature.headers(id: UUID().uuidString.lowercased(), timestamp: clock.now(), body: payload, keys: endpoint.keys)
        {
            request.headers.add(name: name, value: value)
        }
        request.body = .bytes(ByteBuffer(bytes: payload))
        var configuration = HTTPClient.Configuration()
        configuration.redirectConfiguration = .disallow
        return try await HTTPClient.withHTTPClient(configuration: configuration) { client in
            let response: HTTPClientResponse
            do {
                response = try await client.execute(request, timeout: .nanoseconds(nanoseconds))
            } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
                throw HookCallError.timedOut
            }
            var body = Data()
            var truncated = false
            do {
                for try await chunk in response.body {
                    if body.count + chunk.readableBytes > Self.responseLimit {
                        truncated = true
                        break
                    }
                    body.append(contentsOf: chunk.readableBytesView)
                }
            } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout {
                throw HookCallError.timedOut
            }
            return Outcome(
                status: Int(response.status.code), contentType: response.headers.first(name: "Content-Type"),
                retryAfter: !(response.headers.first(name: "Retry-After") ?? "").isEmpty, body: body, truncated: truncated)
        }
    }
}
