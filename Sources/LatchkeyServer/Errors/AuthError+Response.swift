import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyWire

extension HTTPField.Name {
    /// `X-Supabase-Api-Version`: a client that sends `2024-01-01` gets errors in the newer shape.
    static let supabaseAPIVersion = HTTPField.Name("X-Supabase-Api-Version")!
    /// `x-sb-error-code`: every error answer's `error_code`, whatever its body's shape.
    static let supabaseErrorCode = HTTPField.Name("x-sb-error-code")!
}

/// An ``AuthError`` answers for itself, as Hummingbird's errors do: thrown from a handler or a
/// middleware, it becomes GoTrue's JSON error.
///
/// The default shape is `{"code": 400, "error_code": "...", "msg": "..."}`. A request that
/// sends `X-Supabase-Api-Version: 2024-01-01` gets the newer `{"code": "...", "message": "..."}`
/// and the header echoed, as GoTrue does; an OAuth-shaped error (``isOAuthShaped``) is
/// `{"error", "error_description"}`. `x-sb-error-code` carries the code (but for OAuth's
/// shape), and a rate limit's `Retry-After` its wait.
extension AuthError: HTTPResponseError {
    /// The API version whose error shape is `{"code": "...", "message": "..."}`.
    static let apiVersion20240101 = "2024-01-01"

    func response(from request: Request, context: some RequestContext) -> Response {
        response(to: request)
    }

    /// The answer to `request` (whose API version header picks the shape).
    func response(to request: Request) -> Response {
        let newShape = request.headers[.supabaseAPIVersion] == Self.apiVersion20240101
        let body =
            isOAuthShaped
            ? ErrorResponse(error: code, error_description: message)
            : newShape
                ? ErrorResponse.apiVersion20240101(code: code, message: message, weakPasswordReasons: weakPasswordReasons)
                : ErrorResponse.standard(status: Int(status.code), code: code, message: message, weakPasswordReasons: weakPasswordReasons)
        var headers: HTTPFields = [.contentType: "application/json"]
        if !isOAuthShaped { headers[.supabaseErrorCode] = code }
        if newShape { headers[.supabaseAPIVersion] = Self.apiVersion20240101 }
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        if let challenge { headers[.wwwAuthenticate] = challenge }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]  // identical errors are identical bytes
        let data = (try? encoder.encode(body)) ?? Data("{}".utf8)
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
