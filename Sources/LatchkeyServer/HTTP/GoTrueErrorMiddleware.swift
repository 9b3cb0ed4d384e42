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
        } catch let error as AuthError {
            return Self.response(for: error, request: request)
        } catch let error as HTTPError {
            return Self.response(for: Self.translate(error), request: request)
        } catch StoreError.unreadableRow(let column) {
            context.logger.error("unreadable stored row", metadata: ["column": "\(column)"])
            return Self.response(for: .unexpected, request: request)
        } catch let error as StoreError {
            context.logger.error("store failure", metadata: ["error": "\(error)"])
            return Self.response(for: .serviceUnavailable, request: request)
        } catch {
            context.logger.error("unexpected failure", metadata: ["error.type": "\(type(of: error))"])
            return Self.response(for: .unexpected, request: request)
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
        let body = newShape
            ? ErrorResponse.apiVersion20240101(code: error.code, message: error.message, weakPasswordReasons: error.weakPasswordReasons)
            : ErrorResponse.standard(status: Int(error.status.code), code: error.code, message: error.message, weakPasswordReasons: error.weakPasswordReasons)
        var headers: HTTPFields = [.contentType: "application/json", errorCodeHeader: error.code]
        if newShape { headers[apiVersionHeader] = apiVersion20240101 }
        if let retryAfter = error.retryAfter { headers[.retryAfter] = String(retryAfter) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]  // identical errors are identical bytes
        let data = (try? encoder.encode(body)) ?? Data("{}".utf8)
        return Response(status: error.status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }
}
