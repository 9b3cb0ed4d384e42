import Hummingbird

/// Answers 405 `method_not_allowed` (with `Allow`) for a request whose path is served, but not
/// with its method; other unknown requests stay 404 `not_found`.
///
/// Added to the router after every route, so it wraps only the router's not-found responder:
/// whatever reaches it matched no route.
struct MethodNotAllowedMiddleware<Context: RequestContext>: RouterMiddleware {
    /// Each route's path, split into segments (`{name}` matches any one segment), and its method.
    private let routes: [(segments: [Substring], method: HTTPRequest.Method)]

    init(routes: [(method: String, path: String)]) {
        self.routes = routes.compactMap { route in
            HTTPRequest.Method(route.method).map { (Self.segments(route.path), $0) }
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let path = Self.segments(request.uri.path)
        let allowed = routes.filter { Self.matches($0.segments, path) }.map(\.method)
        guard !allowed.isEmpty, !allowed.contains(request.method) else { return try await next(request, context) }
        var response = AuthError(.methodNotAllowed, "method_not_allowed", "Method not allowed").response(to: request)
        response.headers[.allow] = Set(allowed.map(\.rawValue) + ["OPTIONS"]).sorted().joined(separator: ", ")
        return response
    }

    static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    static func matches(_ pattern: [Substring], _ path: [Substring]) -> Bool {
        guard pattern.count == path.count else { return false }
        return zip(pattern, path).allSatisfy { pattern, segment in
            pattern.hasPrefix(":") || pattern.hasPrefix("{") || pattern == "*" || pattern == segment
        }
    }
}
