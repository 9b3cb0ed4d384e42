import Hummingbird
import NIOCore

/// Per-request context: Hummingbird's core storage plus the client's address, which rate
/// limits and the audit log use.
public struct AuthRequestContext: RequestContext, RemoteAddressRequestContext {
    public var coreContext: CoreRequestContextStorage
    public let remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.remoteAddress = source.channel.remoteAddress
    }

    /// Request bodies over 1 MB are refused with 413.
    public var maxUploadSize: Int { ServerConfiguration.maximumRequestBodySize }

    /// The client's address from `X-Forwarded-For`, set by ``ClientAddressMiddleware`` when the
    /// connection comes from a trusted proxy (`--trusted-proxy`).
    var forwardedClientIP: String?

    /// The client's IP address as text ("unknown" when the transport has none): the peer of the
    /// connection, or the address a trusted proxy forwarded.
    var clientIP: String {
        forwardedClientIP ?? remoteAddress?.ipAddress.map(TrustedProxies.normalized) ?? "unknown"
    }
}
