import Foundation
import NIOCore
import NIOPosix
import LatchkeyTestSupport
import LatchkeyTesting

/// A loopback TCP relay that a test can cut and restore, to play a database outage without
/// stopping the database other tests share.
///
/// `cut()` closes the listening socket and every relayed connection (clients see their
/// connections drop and new ones refused, as when the database goes down); `restore()` listens
/// on the same port again.
final class TCPProxy: Sendable {
    let port: Int
    private let upstreamHost: String
    private let upstreamPort: Int
    private let listener: Locked<(any Channel)?>
    private let connections = Locked<[ObjectIdentifier: any Channel]>([:])

    private init(port: Int, upstreamHost: String, upstreamPort: Int, listener: any Channel) {
        self.port = port
        self.upstreamHost = upstreamHost
        self.upstreamPort = upstreamPort
        self.listener = Locked(listener)
    }

    /// Starts relaying a free loopback port to `upstreamHost:upstreamPort`. The port is from
    /// below the ephemeral range (`TestAuthServer.restartablePort()`), so no other test's connection can take
    /// it while the proxy is cut; a port taken between the check and the bind is drawn again.
    static func start(upstreamHost: String, upstreamPort: Int) async throws -> TCPProxy {
        let holder = ProxyHolder()
        var attempt = 0
        let channel: any Channel
        while true {
            do {
                channel = try await bind(port: TestAuthServer.restartablePort(), upstreamHost: upstreamHost, upstreamPort: upstreamPort, holder: holder)
                break
            } catch let error as IOError where error.errnoCode == EADDRINUSE && attempt < 20 {
                attempt += 1
            }
        }
        let proxy = TCPProxy(port: channel.localAddress?.port ?? 0, upstreamHost: upstreamHost, upstreamPort: upstreamPort, listener: channel)
        holder.proxy.withLock { $0 = proxy }
        return proxy
    }

    /// Drops every relayed connection and stops accepting new ones.
    func cut() async {
        let listening = listener.withLock { channel in
            defer { channel = nil }
            return channel
        }
        try? await listening?.close()
        let open = connections.withLock { Array($0.values) }
        for channel in open { try? await channel.close() }
    }

    /// Accepts connections again, on the same port.
    func restore() async throws {
        let holder = ProxyHolder()
        holder.proxy.withLock { $0 = self }
        let channel = try await Self.bind(port: port, upstreamHost: upstreamHost, upstreamPort: upstreamPort, holder: holder)
        listener.withLock { $0 = channel }
    }

    /// Stops the proxy for good.
    func stop() async { await cut() }

    fileprivate func track(_ channel: any Channel) {
        let id = ObjectIdentifier(channel)
        connections.withLock { $0[id] = channel }
        channel.closeFuture.whenComplete { [weak self] _ in _ = self?.connections.withLock { $0.removeValue(forKey: id) } }
    }

    private static func bind(port: Int, upstreamHost: String, upstreamPort: Int, holder: ProxyHolder) async throws -> any Channel {
        let group = MultiThreadedEventLoopGroup.singleton
        return try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                holder.proxy.withLock { $0?.track(inbound) }
                return ClientBootstrap(group: inbound.eventLoop)
                    .channelInitializer { outbound in
                        holder.proxy.withLock { $0?.track(outbound) }
                        return outbound.eventLoop.makeCompletedFuture { try outbound.pipeline.syncOperations.addHandler(RelayHandler(partner: inbound)) }
                    }
                    .connect(host: upstreamHost, port: upstreamPort)
                    .flatMap { outbound in
                        inbound.eventLoop.makeCompletedFuture { try inbound.pipeline.syncOperations.addHandler(RelayHandler(partner: outbound)) }
                    }
            }
            .bind(host: "127.0.0.1", port: port)
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
