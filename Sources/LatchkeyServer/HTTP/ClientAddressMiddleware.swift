import HTTPTypes
import Hummingbird

/// Believes `X-Forwarded-For` only from a trusted proxy (`--trusted-proxy`): the client address
/// it finds (see ``TrustedProxies/clientAddress(peer:forwardedFor:)``) is the one rate limits,
/// the audit log and the access log use. Without trusted proxies it does nothing.
struct ClientAddressMiddleware: RouterMiddleware {
    typealias Context = AuthRequestContext
    let proxies: TrustedProxies

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard !proxies.isEmpty, let peer = context.remoteAddress?.ipAddress else { return try await next(request, context) }
        let forwarded = request.headers[values: .xForwardedFor]
        guard !forwarded.isEmpty else { return try await next(request, context) }
        var context = context
        context.forwardedClientIP = proxies.clientAddress(peer: peer, forwardedFor: forwarded)
        return try await next(request, context)
    }
}

extension HTTPField.Name {
    static var xForwardedFor: Self { .init("X-Forwarded-For")! }
}
