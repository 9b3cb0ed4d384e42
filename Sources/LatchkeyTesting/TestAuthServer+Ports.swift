import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension TestAuthServer {
    /// A loopback port reserved for this test process, for a server that a test starts again
    /// on the same port (pass it as `start(port:)` the first time, then ``restart()``).
    ///
    /// A port the kernel picks (port 0) comes from its ephemeral range, from which it also picks
    /// the local port of every outgoing connection: while the server is stopped, another test's
    /// connection can take the port, and the restart fails with "address already in use". This
    /// port is drawn from below that range, where the kernel never hands out ports by itself.
    ///
    /// Every port handed out is reserved with a lock file in a folder that all test processes on
    /// the machine share (``portLockDirectory``), held until this process exits: no other test
    /// process that reserves its ports this way (the package's Swift and Python suites, another
    /// checkout's run) is handed the same port, and this process is never handed it twice.
    /// Throws when no port could be reserved.
    public static func restartablePort() throws -> Int {
        let range = 20_000..<max(20_001, min(ephemeralRangeStart(), 32_768))
        let directory = portLockDirectory
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for _ in 0..<2_000 {
            let port = Int.random(in: range)
            if reserve(port, in: directory) { return port }
        }
        throw TestServerError("no free loopback port could be reserved in \(range) (lock files in \(directory.path))")
    }

    /// The folder of the port lock files, one `<port>.lock` per reserved port:
    /// `LATCHKEY_TEST_PORT_LOCKS` when set, else `latchkey-test-ports` in the temporary folder.
    public static var portLockDirectory: URL {
        if let path = ProcessInfo.processInfo.environment["LATCHKEY_TEST_PORT_LOCKS"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        return URL(fileURLWithPath: NSTemporaryDirectory(), isDirectory: true).appendingPathComponent("latchkey-test-ports", isDirectory: true)
    }

    /// Takes `port` when its lock file can be locked (no other process, nor this one, holds it)
    /// and nothing listens on it now. The lock's descriptor stays open until the process exits,
    /// so the kernel releases the reservation even when the process is killed.
    private static func reserve(_ port: Int, in directory: URL) -> Bool {
        let path = directory.appendingPathComponent("\(port).lock").path
        let descriptor = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0o666)
        guard descriptor >= 0 else { return false }
        // flock locks belong to the open file description: a second open of the same file, in
        // this process or another, cannot take the lock while this descriptor holds it.
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0, loopbackPortIsFree(port) else {
            close(descriptor)
            return false
        }
        return true
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
