import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension TestAuthServer {
    /// A free loopback port for a server that a test starts again on the same port (pass it as
    /// `start(port:)` the first time, ``port`` the second).
    ///
    /// A port the kernel picks (port 0) comes from its ephemeral range, from which it also picks
    /// the local port of every outgoing connection: while the server is stopped, another test's
    /// connection can take the port, and the restart fails with "address already in use". This
    /// port is drawn at random from below that range, where the kernel never hands out ports by
    /// itself, and is free when drawn.
    public static func restartablePort() -> Int {
        let range = 20_000..<max(20_001, min(ephemeralRangeStart(), 32_768))
        for _ in 0..<1000 {
            let port = Int.random(in: range)
            if loopbackPortIsFree(port) { return port }
        }
        return Int.random(in: range)
    }

    /// The first port of the kernel's ephemeral range (Linux's `ip_local_port_range`; IANA's
    /// 49152 elsewhere).
    private static func ephemeralRangeStart() -> Int {
        #if os(Linux)
        let text = try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8)
        return text.flatMap { $0.split(whereSeparator: \.isWhitespace).first }.flatMap { Int($0) } ?? 32_768
        #else
        return 49_152
        #endif
    }

    /// Whether a listener with `SO_REUSEADDR` (as the server's) could bind `port` on 127.0.0.1 now.
    static func loopbackPortIsFree(_ port: Int) -> Bool {
        #if canImport(Glibc)
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var one: Int32 = 1
        _ = setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } } == 0
    }
}
