import Foundation
import HTTPTypes
import Hummingbird
import LatchkeyWire
import Logging

/// Turns every error into GoTrue's JSON error shape, so a client never sees an HTML page, an
/// empty 500 or a stack trace.
///
/// The default shape is `{"code": 400, "error_code": "...", "msg": "..."}`. A request that
/// sends `X-Supabase-Api-Version: 2024-01-01` gets the newer `{"code": "...", "message": "..."}`
/// and the header echoed, as GoTrue does. `x-sb-error-code` carries the code either way.
struct GoTrueErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    static var apiVersionHeader: HTTPField.Name { HTTPField.Name("X-Supabase-Api-Version")! }
    static var errorCodeHeader: HTTPField.Name { HTTPField.Name("x-sb-error-code")! }
    static var apiVersion20240101: String { "2024-01-01" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            return Self.response(for: Self.authError(error, logger: context.logger), request: request)
        }
    }

    /// The one place a failure becomes an answer: a domain error as it is, Hummingbird's own
    /// errors (404, 405, 413) in GoTrue's words, a store failure by what it means
    /// (``AuthError/init(_:)``, logged), anything else a 500 that names only the error's type.
    static func authError(_ error: any Error, logger: Logger) -> AuthError {
        if let answer = AuthError(answering: error) { return answer }
        switch error {
        case let error as HTTPError:
            return translate(error)
        case let error as StoreError:
            switch error {
            case .duplicateEmail, .duplicatePhone, .duplicateUserID, .duplicateCredential: break
            case .unreadableRow(let column): logger.error("unreadable stored row", metadata: ["column": "\(column)"])
            case .unavailable: logger.error("store failure", metadata: ["error": "\(error)"])
            }
            return AuthError(error)
        default:
            logger.error("unexpected failure", metadata: ["error.type": "\(type(of: error))"])
            return .unexpected
        }
    }

    static func translate(_ error: HTTPError) -> AuthError {
        switch error.status {
        case .notFound: .notFound
        case .contentTooLarge: .requestTooLarge
        case .badRequest: .validation(error.body ?? "Bad request")
        case .methodNotAllowed: AuthError(.methodNotAllowed, "method_not_allowed", "Method not allowed")
        default: AuthError(error.status, "request_failed", error.body ?? error.status.reasonPhrase)
        }
    }

    static func response(for error: AuthError, request: Request) -> Response {
        let newShape = request.headers[apiVersionHeader] == apiVersion20240101
        let body =
            error.isOAuthShaped
            ? ErrorResponse(error: error.code, error_description: error.message)
            : newShape
                ? ErrorResponse.apiVersion20240101(code: error.code, message: error.message, weakPasswordReasons: error.weakPasswordReasons)
                : ErrorResponse.standard(
                    status: Int(error.status.code), code: error.code, message: error.message, weakPasswordReasons: error.weakPasswordReasons)
        var headers: HTTPFields = [.contentType: "application/json"]
        if !error.isOAuthShaped { headers[errorCodeHeader] = error.code }
        if newShape { headers[apiVersionHeader] = apiVersion20240101 }
        if let retryAfter = error.retryAfter { headers[.retryAfter] = String(retryAfter) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]  // identical errors are identical bytes
        let data = (try? encoder.encode(body)) ?? Data("{}".utf8)
        return Response(status: error.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
