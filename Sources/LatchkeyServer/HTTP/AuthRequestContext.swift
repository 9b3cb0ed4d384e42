import Hummingbird
import NIOCore

/// Per-request context: Hummingbird's core storage plus the client's address, which rate
/// limits and the audit log use.
struct AuthRequestContext: RequestContext, RemoteAddressRequestContext {
    var coreContext: CoreRequestContextStorage
    let remoteAddress: SocketAddress?

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }

    /// Request bodies over 1 MB are refused with 413.
    var maxUploadSize: Int { ServerConfiguration.maximumRequestBodySize }

    /// The client's address from `X-Forwarded-For`, set by ``ClientAddressMiddleware`` when the
    /// connection comes from a trusted proxy (`--trusted-proxy`).
    var forwardedClientIP: String?

    /// GoTrue's request-body rules.
    var requestDecoder: GoTrueRequestDecoder { GoTrueRequestDecoder() }
    /// Answers as JSON.
    var responseEncoder: GoTrueResponseEncoder { GoTrueResponseEncoder() }

    /// Who presented the request's access token, once ``SignedInUserMiddleware`` checked it.
    var authenticated: BearerAuthentication.Authenticated?

    /// The client's IP address as text ("unknown" when the transport has none): the peer of the
    /// connection, or the address a trusted proxy forwarded.
    var clientIP: String {
        forwardedClientIP ?? remoteAddress?.ipAddress.map(TrustedProxies.normalized) ?? "unknown"
    }
}
