import Foundation
import Hummingbird
import Logging

/// Logs one line per request: method, path without its query (links to `/verify` carry a
/// token there), status and duration. Bodies and headers are never logged.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        let response = try await next(request, context)
        let elapsed = ContinuousClock.now - start
        let millis = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        context.logger.debug(
            "request",
            metadata: [
                "method": "\(request.method.rawValue)", "path": "\(request.uri.path)",
                "status": "\(response.status.code)", "ms": "\(String(format: "%.2f", millis))",
            ])
        return response
    }
}
