import Foundation

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// An HTTP request, as ``GoTrueBackend`` builds it.
public struct HTTPRequest: Sendable, Hashable {
    public var method: String
    public var url: URL
    public var headers: [String: String]
    public var body: Data?
    /// Seconds before the request fails with ``BackendError/TransportFailure/timedOut``.
    public var timeout: TimeInterval

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: TimeInterval = 30) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// An HTTP response. Header names are lower-cased.
public struct HTTPResponse: Sendable, Hashable {
    public var status: Int
    public var headers: [String: String]
    public var body: Data

    public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
        self.status = status
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { $1 })
        self.body = body
    }
}

/// Sends HTTP requests. Inject your own to add tracing, certificate pinning or a test double.
///
/// A transport throws ``BackendError/transport(_:)`` when no response arrived; any response,
/// whatever its status, is returned.
public protocol HTTPTransport: Sendable {
    func send(_ request: HTTPRequest) async throws -> HTTPResponse
}

/// The default transport, over `URLSession`.
///
/// Cancelling the task that awaits ``send(_:)`` ends the wait at once with
/// ``BackendError/TransportFailure/cancelled``, on Linux too, where Foundation's own
/// cancellation of a request in flight can crash or deadlock the process: there the request is
/// left to finish on its own, within its timeout, and its answer dropped.
public struct URLSessionTransport: HTTPTransport {
    private let sessions: LockedValue<URLSession?>

    /// Uses an ephemeral session (no cookies or cache on disk), made at the first request:
    /// creating a `URLSession` costs about as much as reading a stored session, and a launch
    /// that signs in from a still-valid stored session sends nothing.
    public init() {
        sessions = LockedValue(nil)
    }

    /// Uses `session`.
    public init(session: URLSession) {
        sessions = LockedValue(session)
    }

    private var session: URLSession {
        sessions.withLock { session in
            if let session { return session }
            let made = URLSession(configuration: .ephemeral)
            session = made
            return made
        }
    }

    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        var urlRequest = URLRequest(url: request.url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: request.timeout)
        urlRequest.httpMethod = request.method
        urlRequest.httpBody = request.body
        for (name, value) in request.headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.cancellableData(for: urlRequest)
        } catch let error as URLError {
            throw BackendError.transport(Self.failure(error.code))
        } catch is CancellationError {
            throw BackendError.transport(.cancelled)
        } catch {
            throw BackendError.transport(.unknown)
        }
        guard let http = response as? HTTPURLResponse else {
            throw BackendError.invalidResponse(reason: "not an HTTP response")
        }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            if let name = name as? String, let value = value as? String {
                headers[name.lowercased()] = value
            }
        }
        return HTTPResponse(status: http.statusCode, headers: headers, body: data)
    }

    static func failure(_ code: URLError.Code) -> BackendError.TransportFailure {
        switch code {
        case .notConnectedToInternet, .networkConnectionLost, .cannotConnectToHost, .cannotFindHost,
            .dnsLookupFailed, .internationalRoamingOff, .dataNotAllowed, .callIsActive:
            .offline
        case .timedOut:
            .timedOut
        case .cancelled:
            .cancelled
        default:
            .other(code: code.rawValue)
        }
    }
}
