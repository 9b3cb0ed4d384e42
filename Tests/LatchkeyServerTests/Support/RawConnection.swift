import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A plain TCP connection to the server that sends exactly the bytes a test writes (malformed
/// HTTP, trickled headers, nothing at all) and records everything that comes back.
final class RawConnection: Sendable {
    private let channel: any Channel
    private let received: NIOLockedValueBox<ByteBuffer>

    private init(channel: any Channel, received: NIOLockedValueBox<ByteBuffer>) {
        self.channel = channel
        self.received = received
    }

    /// Opens a connection. `first`, when given, is written the moment the connection is up (on
    /// the event loop, before this returns), so a server with a short idle timeout cannot close
    /// the connection in the gap before a slow test sends its first bytes.
    static func open(port: Int, host: String = "127.0.0.1", sending first: String? = nil) async throws -> RawConnection {
        let received = NIOLockedValueBox(ByteBuffer())
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(Collector(received: received, first: first.map { ByteBuffer(string: $0) }))
                }
            }
            .connect(host: host, port: port).get()
        return RawConnection(channel: channel, received: received)
    }

    func send(_ text: String) async throws {
        try await channel.writeAndFlush(ByteBuffer(string: text))
    }

    /// Whether the server closed the connection within `timeout`; closes it from this side otherwise.
    func closedByServer(within timeout: Duration) async throws -> Bool {
        let closeFuture = channel.closeFuture
        let closed = try await withThrowingTaskGroup(of: Bool.self) { group in
            group.addTask {
                try await closeFuture.get()
                return true
            }
            group.addTask {
                try await Task.sleep(for: timeout)
                return false
            }
            let first = try await group.next() ?? false
            if !first { try? await self.channel.close() }
            group.cancelAll()
            return first
        }
        return closed
    }

    /// Whether the connection is still open.
    var isOpen: Bool { channel.isActive }

    func close() async { try? await channel.close() }

    /// Everything received so far, as text.
    var text: String { received.withLockedValue { String(buffer: $0) } }

    /// The status of the first response received (`0` when none).
    var status: Int {
        let line = text.split(separator: "\r\n", maxSplits: 1).first ?? ""
        let parts = line.split(separator: " ")
        return parts.count > 1 ? Int(parts[1]) ?? 0 : 0
    }

    /// The body of the first response, as JSON.
    var json: [String: Any] {
        guard let range = text.range(of: "\r\n\r\n") else { return [:] }
        let body = Data(text[range.upperBound...].utf8)
        return (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
    }

    private final class Collector: ChannelInboundHandler {
        typealias InboundIn = ByteBuffer
        typealias OutboundOut = ByteBuffer
        let received: NIOLockedValueBox<ByteBuffer>
        let first: ByteBuffer?
        init(received: NIOLockedValueBox<ByteBuffer>, first: ByteBuffer?) {
            self.received = received
            self.first = first
        }
        func channelActive(context: ChannelHandlerContext) {
            if let first { context.writeAndFlush(wrapOutboundOut(first), promise: nil) }
            context.fireChannelActive()
        }
        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            var buffer = unwrapInboundIn(data)
            _ = received.withLockedValue { $0.writeBuffer(&buffer) }
        }
    }
}
