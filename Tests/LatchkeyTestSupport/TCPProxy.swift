import Foundation
import NIOCore
import NIOPosix

/// A loopback TCP relay that a test can cut and restore, to play a database outage without
/// stopping the database other tests share, or hold, to keep a call in flight until the test has
/// seen what a client shows while it waits.
///
/// `cut()` drops every relayed connection, and until `restore()` every new connection is closed
/// as soon as it is accepted (clients see their connections drop and new ones fail, as when the
/// database goes down). The listening socket stays open throughout, so the port is never free
/// for someone else to take and `restore()` cannot fail to get it back.
///
/// `hold()` keeps every byte clients send from then on (on open and new connections) until
/// `release()` relays it, in order: the server never sees the request, so the client waits for
/// as long as the test needs, with no timing involved.
package final class TCPProxy: Sendable {
    package let port: Int
    private let upstreamHost: String
    private let upstreamPort: Int
    private let listener: any Channel
    private let state = Locked(State())

    private struct State {
        var down = false
        var connections: [ObjectIdentifier: any Channel] = [:]
        var held = false
        /// Client-side relays keeping bytes back, to be told when the hold ends.
        var holding: [@Sendable () -> Void] = []
    }

    private init(port: Int, upstreamHost: String, upstreamPort: Int, listener: any Channel) {
        self.port = port
        self.upstreamHost = upstreamHost
        self.upstreamPort = upstreamPort
        self.listener = listener
    }

    /// Starts relaying a free loopback port to `upstreamHost:upstreamPort`.
    package static func start(upstreamHost: String, upstreamPort: Int) async throws -> TCPProxy {
        let holder = ProxyHolder()
        let channel = try await bind(upstreamHost: upstreamHost, upstreamPort: upstreamPort, holder: holder)
        let proxy = TCPProxy(port: channel.localAddress?.port ?? 0, upstreamHost: upstreamHost, upstreamPort: upstreamPort, listener: channel)
        holder.proxy.withLock { $0 = proxy }
        return proxy
    }

    /// Drops every relayed connection and refuses new ones.
    package func cut() async {
        let open = state.withLock { state -> [any Channel] in
            state.down = true
            return Array(state.connections.values)
        }
        for channel in open { try? await channel.close() }
    }

    /// Relays new connections again.
    package func restore() async throws {
        state.withLock { $0.down = false }
    }

    /// Keeps what clients send from now on, until ``release()``.
    package func hold() {
        state.withLock { $0.held = true }
    }

    /// Relays everything held, in order, and relays freely again.
    package func release() {
        let waiting = state.withLock { state -> [@Sendable () -> Void] in
            state.held = false
            defer { state.holding = [] }
            return state.holding
        }
        for resume in waiting { resume() }
    }

    /// Whether a client's bytes must be kept back now; if so, `resume` runs when the hold ends.
    fileprivate func mustHold(resume: @escaping @Sendable () -> Void) -> Bool {
        state.withLock { state in
            guard state.held else { return false }
            state.holding.append(resume)
            return true
        }
    }

    /// Stops the proxy for good.
    package func stop() async {
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
                            try outbound.pipeline.syncOperations.addHandler(RelayHandler(partner: inbound, gate: nil))
                        }
                    }
                    .connect(host: upstreamHost, port: upstreamPort)
                    .flatMap { outbound in
                        inbound.eventLoop.makeCompletedFuture {
                            try inbound.pipeline.syncOperations.addHandler(RelayHandler(partner: outbound, gate: holder))
                        }
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

/// Writes everything one side reads to the other side, and closes both when either closes. On
/// the client side (`gate` set) it keeps bytes back while the proxy holds, and anything read
/// after that until the kept bytes are written, so the order never changes.
private final class RelayHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer
    let partner: any Channel
    let gate: ProxyHolder?
    private var kept: [ByteBuffer] = []
    private var waiting = false

    init(partner: any Channel, gate: ProxyHolder?) {
        self.partner = partner
        self.gate = gate
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let bytes = unwrapInboundIn(data)
        if waiting {
            kept.append(bytes)
            return
        }
        if let gate {
            let loop = context.eventLoop
            let handler = NIOLoopBound(self, eventLoop: loop)
            let holds = gate.proxy.withLock { proxy in
                proxy?.mustHold(resume: { loop.execute { handler.value.relayKept() } }) ?? false
            }
            if holds {
                waiting = true
                kept.append(bytes)
                return
            }
        }
        partner.writeAndFlush(bytes, promise: nil)
    }

    private func relayKept() {
        waiting = false
        for bytes in kept { partner.write(bytes, promise: nil) }
        kept = []
        partner.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner.close(promise: nil)
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }
}
