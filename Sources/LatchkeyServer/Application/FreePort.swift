import NIOCore
import NIOPosix

/// Picks a port that is free now, for a server asked to listen on port 0 without an external
/// URL: its links and token issuer must name the port clients will reach, and those are made
/// before the server binds.
///
/// Another process could take the port between this check and the server's bind; the server
/// then fails to start with a clear "port in use" error rather than naming a wrong port.
public enum FreePort {
    /// A port on `host` that nothing listens on right now.
    public static func pick(host: String) async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: host, port: 0).get()
        let port = channel.localAddress?.port ?? 0
        try await channel.close()
        return port
    }
}
