import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `python3` (found on `PATH`) with `posix_spawnp` in this process's environment, for the
/// decoder round trip.
///
/// A minimal counterpart of LatchkeyTestSupport's `ChildProcess` (which would bring the server
/// into this target): standard output and error go to a temporary file, read once the child
/// has exited. Foundation's `Process` is not used (it crashes now and then on Linux).
enum Python {
    /// Runs `python3 arguments…` to its end; returns the exit status (128 + signal when a
    /// signal ended it) and what it printed on standard output and error.
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("latchkey-qr-python-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let argv = (["python3"] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid = pid_t()
        let result = posix_spawnp(&pid, "python3", &actions, nil, argv, envp)
        guard result == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "posix_spawnp python3: \(String(cString: strerror(result)))"])
        }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        let signal = raw & 0x7f
        let status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return (status, output)
    }

    /// Whether `python3` can import every module in `modules`.
    static func canImport(_ modules: [String]) -> Bool {
        (try? run(["-c", "import " + modules.joined(separator: ", ")]).status) == 0
    }
}
