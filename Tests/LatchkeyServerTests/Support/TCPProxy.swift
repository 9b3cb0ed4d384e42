import Foundation
import LatchkeyTestSupport
import NIOCore
import NIOPosix

/// A loopback TCP relay that a test can cut and restore, to play a database outage without
/// stopping the database other tests share.
///
/// `cut()` drops every relayed connection, and until `restore()` every new connection is closed
/// as soon as it is accepted (clients see their connections drop and new ones fail, as when the
/// database goes down). The listening socket stays open throughout, so the port is never free
/// for someone else to take and `restore()` cannot fail to get it back.
final class TCPProxy: Sendable {
    let port: Int
    private let upstreamHost: String
    private let upstreamPort: Int
    private let listener: any Channel
    private let state = Locked(State())

    private struct State {
        var down = false
        var connections: [ObjectIdentifier: any Channel] = [:]
    }

    private init(port: Int, upstreamHost: String, upstreamPort: Int, listener: any Channel) {
        self.port = port
        self.upstreamHost = upstreamHost
        self.upstreamPort = upstreamPort
        self.listener = listener
    }

    /// Starts relaying a free loopback port to `upstreamHost:upstreamPort`.
    static func start(upstreamHost: String, upstreamPort: Int) async throws -> TCPProxy {
        let holder = ProxyHolder()
        let channel = try await bind(upstreamHost: upstreamHost, upstreamPort: upstreamPort, holder: holder)
        let proxy = TCPProxy(port: channel.localAddress?.port ?? 0, upstreamHost: upstreamHost, upstreamPort: upstreamPort, listener: channel)
        holder.proxy.withLock { $0 = proxy }
        return proxy
    }

    /// Drops every relayed connection and refuses new ones.
    func cut() async {
        let open = state.withLock { state -> [any Channel] in
            state.down = true
            return Array(state.connections.values)
        }
        for channel in open { try? await channel.close() }
    }

    /// Relays new connections again.
    func restore() async throws {
        state.withLock { $0.down = false }
    }

    /// Stops the proxy for good.
    func stop() async {
        await cut()
        try? await listener.close()
    }

    /// Whether `channel` may be relayed: tracked while the proxy is up, `false` while it is cut.
    fileprivate func admit(_ channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let admitted = state.withLock { state -> Bool in
            guard !state.down else { return false }
            state.connections[id] = channel
            return true
        }
        if admitted {
            channel.closeFuture.whenComplete { [weak self] _ in _ = self?.state.withLock { $0.connections.removeValue(forKey: id) } }
        }
        return admitted
    }

    private static func bind(upstreamHost: String, upstreamPort: Int, holder: ProxyHolder) async throws -> any Channel {
        let group = MultiThreadedEventLoopGroup.singleton
        return try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                guard holder.proxy.withLock({ $0?.admit(inbound) }) == true else {
                    return inbound.close()
                }
                return ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        guard holder.proxy.withLock({ $0?.admit(outbound) }) == true else {
                            return outbound.close()
                        }
                        return outbound.eventLoop.makeCompletedFuture {
                            try outbound.pipeline.syncOperations.addHandler(RelayHandler(partner: inbound))
                        }
                    }
                    .connect(host: upstreamHost, port: upstreamPort)
                    .flatMap { outbound in
                        inbound.eventLoop.makeCompletedFuture { try inbound.pipeline.syncOperations.addHandler(RelayHandler(partner: outbound)) }
                    }
            }
            .bind(host: "127.0.0.1", port: 0)
            .get()
    }
}

/// Lets the channel initializer reach the proxy that owns it (set once the proxy exists).
private final class ProxyHolder: Sendable {
    let proxy = Locked<TCPProxy?>(nil)
}

/// Writes everything one side reads to the other side, and closes both when either closes.
private final class RelayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let partner: any Channel

    init(partner: any Channel) { self.partner = partner }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        partner.writeAndFlush(unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
