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
    /// signal ended it) and what it printed on standard output and error. Waits by polling, so
    /// no thread of Swift's cooperative pool (one per core) is held while Python runs.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("latchkey-qr-python-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let pid = try spawn(arguments, outputPath: outputPath)
        var raw: Int32 = 0
        while true {
            let reaped = waitpid(pid, &raw, WNOHANG)
            if reaped == pid || (reaped == -1 && errno != EINTR) { break }
            try? await Task.sleep(for: .milliseconds(10))
        }
        let signal = raw & 0x7f
        let status = signal == 0 ? (raw >> 8) & 0xff : 128 + signal
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        return (status, output)
    }

    /// Starts `python3 arguments…` with standard output and error going to `outputPath`.
    private static func spawn(_ arguments: [String], outputPath: String) throws -> pid_t {
        // Darwin imports the type as an optional opaque pointer, Glibc as a struct.
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #elseif canImport(Glibc) || canImport(Musl)
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)

        let argv = (["python3"] + arguments).map { strdup($0) } + [nil]
        let envp = ProcessInfo.processInfo.environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for element in argv { free(element) }
            for element in envp { free(element) }
        }
        var pid = pid_t()
        let result = posix_spawnp(&pid, "python3", &actions, nil, argv, envp)
        guard result == 0 else {
            throw CocoaError(.executableLoad, userInfo: [NSLocalizedDescriptionKey: "posix_spawnp python3: \(String(cString: strerror(result)))"])
        }
        return pid
    }

    /// Whether `python3` can import every module in `modules`.
    /// (Blocks while Python starts: it runs once, when the tests are planned.)
    static func canImport(_ modules: [String]) -> Bool {
        let outputPath = FileManager.default.temporaryDirectory
            .appendingPathComponent("latchkey-qr-python-\(UUID().uuidString).txt").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        guard let pid = try? spawn(["-c", "import " + modules.joined(separator: ", ")], outputPath: outputPath) else { return false }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) == -1 && errno == EINTR {}
        return raw == 0
    }
}
