import Foundation

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

    /// Runs `latchkey arguments…` to completion.
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        let process = try start(arguments, environment: environment)
        process.process.waitUntilExit()
        return process.result()
    }

    /// Starts `latchkey arguments…` and returns without waiting. `input`, when given, is the
    /// process's standard input (otherwise /dev/null); `removing` names environment variables
    /// the child must not inherit.
    static func start(_ arguments: [String], environment: [String: String] = [:], input: String? = nil, removing: [String] = []) throws -> Running {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        env.removeValue(forKey: "LATCHKEY_JWT_SECRET")
        for key in removing { env.removeValue(forKey: key) }
        for (key, value) in environment { env[key] = value }
        process.environment = env
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-out-\(UUID().uuidString)")
        let err = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-err-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: out.path, contents: nil)
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        if let input {
            let inputFile = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-in-\(UUID().uuidString)")
            _ = FileManager.default.createFile(atPath: inputFile.path, contents: Data(input.utf8), attributes: [.posixPermissions: 0o600])
            process.standardInput = try FileHandle(forReadingFrom: inputFile)
            try? FileManager.default.removeItem(at: inputFile)  // the open handle keeps it readable
        } else {
            process.standardInput = FileHandle.nullDevice
        }
        try process.run()
        return Running(process: process, stdoutFile: out, stderrFile: err)
    }

    final class Running: @unchecked Sendable {
        let process: Process
        let stdoutFile: URL
        let stderrFile: URL

        init(process: Process, stdoutFile: URL, stderrFile: URL) {
            self.process = process
            self.stdoutFile = stdoutFile
            self.stderrFile = stderrFile
        }

        var stderr: String { (try? String(contentsOf: stderrFile, encoding: .utf8)) ?? "" }

        func result() -> Result {
            Result(
                status: process.terminationStatus,
                stdout: (try? String(contentsOf: stdoutFile, encoding: .utf8)) ?? "",
                stderr: stderr)
        }

        /// Waits up to `seconds` for the process to exit.
        func wait(upTo seconds: Double) async -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while process.isRunning && Date() < deadline { try? await Task.sleep(for: .milliseconds(50)) }
            return !process.isRunning
        }
    }

    /// A free loopback port.
    static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}
