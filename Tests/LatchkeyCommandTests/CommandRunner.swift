import Foundation
import LatchkeyTestSupport
import LatchkeyTesting

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
        for key in env.keys
        where key.hasPrefix("GOTRUE_") || ["DATABASE_URL", "PORT", "API_EXTERNAL_URL"].contains(key)
            || (key.hasPrefix("LATCHKEY_") && !["LATCHKEY_HOME", "LATCHKEY_PROFILE", "LATCHKEY_SERVER"].contains(key))
        {
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
        /// What the process has written to standard output so far.
        var stdout: String { (try? String(contentsOf: stdoutFile, encoding: .utf8)) ?? "" }

        /// The exit status and output, once the process has exited.
        func result() async -> Result {
            await process.exited()
            return Result(
                status: process.terminationStatus,
                stdout: (try? String(contentsOf: stdoutFile, encoding: .utf8)) ?? "",
                stderr: stderr)
        }

        /// Ends the process (SIGKILL) and reaps it: for one that did not finish in time, so
        /// that reading its result cannot wait forever.
        func kill() async {
            process.send(SIGKILL)
            await process.exited()
        }

        /// Waits up to `seconds` for the process to exit.
        func wait(upTo seconds: Double) async -> Bool {
            let deadline = ContinuousClock.now + .seconds(seconds)
            while process.isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
            return !process.isRunning
        }
    }

    /// A loopback port reserved for this test process (`TestAuthServer.restartablePort()`), for a
    /// server whose port a test must know before it starts or keep across a restart.
    static func freePort() throws -> Int { try TestAuthServer.restartablePort() }
}
