import Foundation
import LatchkeyTestSupport

/// Runs the built `latchkey` binary as a separate process, as a user or a script would.
struct CommandRunner {
    /// The `latchkey` executable next to the test bundle (the package builds it for the tests).
    static var executable: URL {
        let bundleDirectory = Bundle.main.bundleURL.deletingLastPathComponent()
        for candidate in [bundleDirectory, Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("latchkey")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return bundleDirectory.appendingPathComponent("latchkey")
    }

    struct Result {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// Runs `latchkey arguments…` to completion (waiting without holding a thread).
    static func run(_ arguments: [String], environment: [String: String] = [:]) async throws -> Result {
        try await start(arguments, environment: environment).result()
    }

    /// Starts `latchkey arguments…` and returns without waiting. `input`, when given, is the
    /// process's standard input (otherwise /dev/null); `removing` names environment variables
    /// the child must not inherit.
    /// `inputDescriptor`, when given, is the process's standard input instead (the caller keeps
    /// the other end of the pipe; this closes the given descriptor once the child has it).
    static func start(
        _ arguments: [String], environment: [String: String] = [:], input: String? = nil, inputDescriptor: Int32? = nil, removing: [String] = []
    ) throws -> Running {
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "LATCHKEY_JWT_SECRET")
        // `serve`, `keys` and `backup` read their options from these: a test says what it sets.
        for key in env.keys where key.hasPrefix("GOTRUE_") || ["DATABASE_URL", "PORT", "API_EXTERNAL_URL"].contains(key)
            || (key.hasPrefix("LATCHKEY_") && !["LATCHKEY_HOME", "LATCHKEY_PROFILE", "LATCHKEY_SERVER"].contains(key)) {
            env.removeValue(forKey: key)
        }
        for key in removing { env.removeValue(forKey: key) }
        for (key, value) in environment { env[key] = value }
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-out-\(UUID().uuidString)")
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-err-\(UUID().uuidString)")
        let stdout = open(out.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        let stderr = open(err.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        var stdin: Int32? = inputDescriptor
        if let input {
            let inputFile = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-in-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: inputFile.path, contents: Data(input.utf8), attributes: [.posixPermissions: 0o600])
            stdin = open(inputFile.path, O_RDONLY | O_CLOEXEC)
            try? FileManager.default.removeItem(at: inputFile)  // the open descriptor keeps it readable
        }
        defer {
            for descriptor in [stdout, stderr, stdin ?? -1] where descriptor >= 0 { close(descriptor) }
        }
        guard stdout >= 0, stderr >= 0, (input == nil && inputDescriptor == nil) || (stdin ?? -1) >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "cannot open the output files of a command"])
        }
        let process = try ChildProcess(
            executable: executable.path, arguments: arguments, environment: env,
            standardInput: stdin, standardOutput: stdout, standardError: stderr)
        return Running(process: process, stdoutFile: out, stderrFile: err)
    }

    final class Running: @unchecked Sendable {
        let process: ChildProcess
        let stdoutFile: URL
        let stderrFile: URL

        init(process: ChildProcess, stdoutFile: URL, stderrFile: URL) {
            self.process = process
            self.stdoutFile = stdoutFile
            self.stderrFile = stderrFile
        }

        var stderr: String { (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "" }

        /// The exit status and output, once the process has exited.
        func result() async -> Result {
            await process.exited()
            return Result(
                status: process.terminationStatus,
                stdout: (try? String(contentsOf: stdoutFile, encoding: .utf8)) ?? "",
                stderr: stderr)
        }

        /// Waits up to `seconds` for the process to exit.
        func wait(upTo seconds: Double) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
            return !process.isRunning
        }
    }

    /// A free loopback port for a test that must know its server's port before it starts (or
    /// restart a server on the same port).
    ///
    /// The port is drawn from below the kernel's ephemeral range, so no outgoing connection and
    /// no listener on port 0 — which every other test uses — can be handed it between this
    /// check and the server's bind, nor while the server is stopped for a restart. It is free
    /// when drawn (a listener with `SO_REUSEADDR`, as the server's, can bind it).
    static func freePort() -> Int {
        let ephemeralStart = (try? String(contentsOfFile: "/proc/sys/net/ipv4/ip_local_port_range", encoding: .utf8))
            .flatMap { $0.split(whereSeparator: \.isWhitespace).first }.flatMap { Int($0) } ?? 32768
        let range = 20_000..<max(20_001, min(ephemeralStart, 32_768))
        for _ in 0..<1000 {
            let port = Int.random(in: range)
            if canBind(port) { return port }
        }
        return Int.random(in: range)
    }

    /// Whether a listener could bind `port` on 127.0.0.1 now.
    private static func canBind(_ port: Int) -> Bool {
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
