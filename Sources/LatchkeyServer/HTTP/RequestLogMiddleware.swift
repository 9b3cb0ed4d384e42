import Foundation
import Hummingbird
import Logging

/// The access log and the request metrics: one `info` line per request with its method, path
/// without the query (links to `/verify` carry a token there), status, duration and client IP
/// (the forwarded one behind a trusted proxy). Bodies, headers and query strings are never logged.
///
/// It runs outside ``GoTrueErrorMiddleware``, so it sees the status of error answers too.
struct RequestLogMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let metrics: ServerMetrics?

    init(metrics: ServerMetrics? = nil) {
        self.metrics = metrics
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response: Response
        do {
            response = try await next(request, context)
        } catch {
            record(request, context: context, status: 500, errorCode: nil, elapsed: ContinuousClock.now - start)
            throw error
        }
        record(
            request, context: context, status: Int(response.status.code),
            errorCode: response.headers[.supabaseErrorCode], elapsed: ContinuousClock.now - start)
        return response
    }

    private func record(_ request: Request, context: Context, status: Int, errorCode: String?, elapsed: Duration) {
        let millis = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        context.logger.info(
            "request",
            metadata: [
                "method": "\(request.method.rawValue)", "path": "\(request.uri.path)",
                "status": "\(status)", "duration_ms": "\(String(format: "%.2f", millis))", "client_ip": "\(context.clientIP)",
            ])
        guard let metrics else { return }
        let route = context.endpointPath.map(Self.template) ?? "NotFound"
        metrics.recordRequest(
            method: request.method.rawValue, route: route, status: status, duration: elapsed,
            grantType: route == "/token" ? request.uri.queryParameters.get("grant_type") : nil, errorCode: errorCode)
    }

    /// Hummingbird's route path (`/admin/users/:id`) in OpenAPI's form (`/admin/users/{id}`).
    static func template(_ path: String) -> String {
        // Checked byte by byte: `String.contains(_: String)` goes through Foundation's search,
        // which cost 1% of `GET /user`.
        guard path.utf8.contains(UInt8(ascii: ":")) else {
            return path.utf8.first == UInt8(ascii: "/") || path == "NotFound" ? path : "/" + path
        }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false).map { part in
            part.hasPrefix(":") ? "{\(part.dropFirst())}" : String(part)
        }.joined(separator: "/")
        return parts.hasPrefix("/") ? parts : "/" + parts
    }
}
