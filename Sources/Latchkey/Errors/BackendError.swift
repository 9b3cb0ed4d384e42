import Foundation

/// A failure talking to the auth server, as an ``AuthBackend`` reports it.
///
/// ``SessionManager`` uses it to decide between "keep the session and retry" (``isTransient``)
/// and "the server says this session is over" (``definitiveSignOutReason``), and turns it into an
/// ``AuthFailure`` for people.
public enum BackendError: Error, Sendable, Hashable, CustomStringConvertible {
    /// Why a request got no answer: the network (from `URLError` or task cancellation), or the
    /// cross-process lock that guards the stored session.
    public enum TransportFailure: Sendable, Hashable {
        /// No connection, or the host cannot be reached.
        case offline
        /// The request, or the wait for the cross-process lock, took too long.
        case timedOut
        /// The request was cancelled.
        case cancelled
        /// Another `URLError` code (`URLError.Code.rawValue`).
        case other(code: Int)
        /// The cross-process lock (``SessionManagerConfiguration/crossProcessLockURL``) cannot be
        /// taken: its file cannot be created or locked. Nothing was sent.
        case lockUnavailable
        /// The transport failed with an error that says nothing more (neither a `URLError` nor a
        /// cancellation).
        case unknown
    }

    /// The request never got an answer.
    case transport(TransportFailure)
    /// The server answered with an error status. `code` is GoTrue's `error_code` (or the OAuth
    /// `error` field from older servers); `message` is the server's text, for logs only, never
    /// shown to users.
    case server(status: Int, code: String?, message: String?, retryAfter: TimeInterval?)
    /// The server answered 2xx with a body Latchkey cannot read.
    case invalidResponse(reason: String)

    /// Whether the failure says nothing about the session: offline, timed out, cancelled, a 5xx,
    /// or 429. The session is kept and the request retried with backoff.
    public var isTransient: Bool {
        switch self {
        case .transport: return true
        case .server(let status, _, _, _): return status >= 500 || status == 429 || status == 408
        case .invalidResponse: return false
        }
    }

    /// GoTrue error codes that mean the session is over, and why.
    static let sessionEndingCodes: [String: SignOutReason] = [
        "refresh_token_not_found": .sessionRevoked(code: "refresh_token_not_found"),
        "refresh_token_already_used": .sessionRevoked(code: "refresh_token_already_used"),
        "session_not_found": .sessionRevoked(code: "session_not_found"),
        "session_expired": .sessionRevoked(code: "session_expired"),
        "user_banned": .userBanned,
        "user_not_found": .userDeleted,
    ]

    /// The reason to sign out when the server's answer is definitive about the session, else
    /// `nil`. Only these codes (and the equivalent OAuth `invalid_grant` for a refresh token)
    /// ever end a session; any other failure keeps it.
    public var definitiveSignOutReason: SignOutReason? {
        guard case .server(let status, let code, let message, _) = self, (400..<500).contains(status),
            status != 429, status != 408
        else { return nil }
        if let code, let reason = Self.sessionEndingCodes[code] { return reason }
        // Older GoTrue: {"error":"invalid_grant","error_description":"Invalid Refresh Token: …"}
        if code == "invalid_grant", let message, message.localizedCaseInsensitiveContains("refresh token") {
            if message.localizedCaseInsensitiveContains("already used") {
                return .sessionRevoked(code: "refresh_token_already_used")
            }
            return .sessionRevoked(code: "refresh_token_not_found")
        }
        return nil
    }

    /// What a backend answers for a flow it does not implement.
    public static func unsupported(_ flow: String) -> BackendError {
        .invalidResponse(reason: "\(flow) is not supported by this backend")
    }

    /// The HTTP status, when the server answered.
    public var status: Int? {
        if case .server(let status, _, _, _) = self { return status }
        return nil
    }

    /// The server's error code, when it sent one.
    public var code: String? {
        if case .server(_, let code, _, _) = self { return code }
        return nil
    }

    public var description: String {
        switch self {
        case .transport(let failure): "BackendError.transport(\(failure))"
        case .server(let status, let code, _, let retryAfter):
            "BackendError.server(status: \(status), code: \(code ?? "nil")\(retryAfter.map { ", retryAfter: \($0)" } ?? ""))"
        case .invalidResponse(let reason): "BackendError.invalidResponse(\(reason))"
        }
    }
}

extension BackendError {
    /// `error` as a backend error: itself, a cancellation, or an unknown transport failure (an
    /// ``AuthBackend`` should throw only ``BackendError``).
    init(_ error: any Error) {
        switch error {
        case let backend as BackendError: self = backend
        case is CancellationError: self = .transport(.cancelled)
        default: self = .transport(.unknown)
        }
    }
}
