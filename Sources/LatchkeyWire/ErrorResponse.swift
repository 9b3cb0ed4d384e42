/// GoTrue's error body, in every shape a client meets:
///
/// - `{"code": 400, "error_code": "…", "msg": "…"}`: GoTrue's default.
/// - `{"code": "…", "message": "…"}`: with the request header `X-Supabase-Api-Version: 2024-01-01`.
/// - `{"error": "…", "error_description": "…"}`: OAuth endpoints of older servers.
/// - `{"message": "…"}`: API gateways in front of the server.
///
/// Either shape may carry `weak_password.reasons`. The server encodes the first two; a client
/// reads all four through ``errorCode`` and ``text``.
public struct ErrorResponse: Codable, Sendable, Hashable {
    /// Why a password was refused: `length`, `characters`, `pwned`.
    public struct WeakPassword: Codable, Sendable, Hashable {
        public var reasons: [String]?

        public init(reasons: [String]?) {
            self.reasons = reasons
        }
    }

    /// The HTTP status as a number (default shape) or the error code as a string (2024-01-01).
    public var code: JSONValue?
    public var error_code: String?
    public var msg: String?
    public var message: String?
    public var error: String?
    public var error_description: String?
    public var weak_password: WeakPassword?

    public init(
        code: JSONValue? = nil, error_code: String? = nil, msg: String? = nil, message: String? = nil, error: String? = nil,
        error_description: String? = nil, weak_password: WeakPassword? = nil
    ) {
        self.code = code
        self.error_code = error_code
        self.msg = msg
        self.message = message
        self.error = error
        self.error_description = error_description
        self.weak_password = weak_password
    }

    /// GoTrue's default shape: `{"code": status, "error_code": code, "msg": message}`.
    public static func standard(status: Int, code: String, message: String, weakPasswordReasons: [String]? = nil) -> ErrorResponse {
        ErrorResponse(
            code: .number(Double(status)), error_code: code, msg: message,
            weak_password: weakPasswordReasons.map { WeakPassword(reasons: $0) })
    }

    /// The shape of API version 2024-01-01: `{"code": code, "message": message}`.
    public static func apiVersion20240101(code: String, message: String, weakPasswordReasons: [String]? = nil) -> ErrorResponse {
        ErrorResponse(code: .string(code), message: message, weak_password: weakPasswordReasons.map { WeakPassword(reasons: $0) })
    }

    /// The machine-readable code, whichever shape carried it (`error_code`, a string `code`, or
    /// the OAuth `error`).
    public var errorCode: String? { error_code ?? code?.stringValue ?? error }

    /// The server's human-readable text, whichever shape carried it. For logs, not for users.
    public var text: String? { msg ?? message ?? error_description }
}
