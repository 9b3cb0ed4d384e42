import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process started with `posix_spawn`, for tests that run the `latchkey` binary.
///
/// Foundation's `Process.run()` on Linux (Swift 6.3) crashes now and then: it over-reads the
/// `dirent` records of `/proc/self/fd` while deciding which descriptors to close
/// (swift-corelibs-foundation#5472). A test suite that starts a hundred processes hits it in a
/// fair share of runs, so the tests spawn directly. Standard input, output and error are the
/// given descriptors (`/dev/null` when `nil`); signal dispositions and the signal mask are reset
/// to their defaults in the child, as a shell would.
package final class ChildProcess: @unchecked Sendable {
    /// The child's process id.
    package let processIdentifier: pid_t
    private let lock = NSLock()
    private var status: Int32?

    /// Starts `executable` with `arguments` and exactly `environment`.
    package init(
        executable: String, arguments: [String], environment: [String: String],
        standardInput: Int32? = nil, standardOutput: Int32? = nil, standardError: Int32? = nil
    ) throws {
        // Darwin imports both spawn types as optional opaque pointers, Glibc as structs.
        #if canImport(Darwin)
        var actions: posix_spawn_file_actions_t? = nil
        #elseif canImport(Glibc) || canImport(Musl)
        var actions = posix_spawn_file_actions_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for (source, target) in [(standardInput, Int32(0)), (standardOutput, 1), (standardError, 2)] {
            if let source {
                posix_spawn_file_actions_adddup2(&actions, source, target)
            } else {
                posix_spawn_file_actions_addopen(&actions, target, "/dev/null", target == 0 ? O_RDONLY : O_WRONLY, 0)
            }
        }
        #if canImport(Darwin)
        var attributes: posix_spawnattr_t? = nil
        #elseif canImport(Glibc) || canImport(Musl)
        var attributes = posix_spawnattr_t()
        #endif
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigfillset(&defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for element in argv { free(element) }
            for element in envp { free(element) }
        }
        var pid = pid_t()
        let result = posix_spawn(&pid, executable, &actions, &attributes, argv, envp)
        guard result == 0 else {
            throw CocoaError(
                .executableLoad, userInfo: [NSLocalizedDescriptionKey: "posix_spawn \(executable): \(String(cString: strerror(result)))"])
        }
        processIdentifier = pid
    }

    /// Whether the child is still running (reaps it once it has exited).
    package var isRunning: Bool {
        lock.lock()
        defer { lock.unlock() }
        if status != nil { return false }
        var raw: Int32 = 0
        let reaped = waitpid(processIdentifier, &raw, WNOHANG)
        guard reaped == processIdentifier else { return reaped == 0 }
        status = raw
        return false
    }

    /// Blocks until the child exits.
    package func waitUntilExit() {
        lock.lock()
        defer { lock.unlock() }
        guard status == nil else { return }
        var raw: Int32 = 0
        while waitpid(processIdentifier, &raw, 0) == -1 && errno == EINTR {}
        status = raw
    }

    /// The exit code, or 128 + the signal number when a signal ended the child (as a shell
    /// reports it). Waits for the child to exit.
    package var terminationStatus: Int32 {
        waitUntilExit()
        let raw = lock.withLock { status ?? 0 }
        let signal = raw & 0x7f
        return signal == 0 ? (raw >> 8) & 0xff : 128 + signal
    }

    /// Sends `signal` to the child.
    package func send(_ signal: Int32) {
        kill(processIdentifier, signal)
    }

    /// Waits until the child exits without holding a thread: a test's blocked `waitpid` takes
    /// one of the few threads of Swift's cooperative pool (two on a 2-core machine), which
    /// in-process servers and every other running test need.
    package func exited() async {
        var interval = Duration.milliseconds(2)
        while isRunning {
            do {
                try await Task.sleep(for: interval)
            } catch {
                // Cancelled: the child still has to be reaped.
                waitUntilExit()
                return
            }
            interval = min(interval * 2, .milliseconds(50))
        }
    }

    /// Runs `executable` to its end and returns its exit status and standard output (standard
    /// error is discarded). The output goes through a temporary file, so neither the read nor
    /// the wait holds a thread.
    package static func run(executable: String, arguments: [String], environment: [String: String]) async throws -> (status: Int32, output: Data) {
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-child-\(UUID().uuidString)")
        let descriptor = open(outputFile.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "open \(outputFile.path): \(String(cString: strerror(errno)))"])
        }
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let child: ChildProcess
        do {
            child = try ChildProcess(executable: executable, arguments: arguments, environment: environment, standardOutput: descriptor)
        } catch {
            close(descriptor)
            throw error
        }
        close(descriptor)
        await child.exited()
        return (child.terminationStatus, try Data(contentsOf: outputFile))
    }

    /// A pipe whose two descriptors close on exec, so a spawned child holds only the end it was
    /// given (as its standard input or output), and sees end-of-file when the parent closes its
    /// own. Returns (read end, write end).
    package static func makePipe() throws -> (Int32, Int32) {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "pipe: \(String(cString: strerror(errno)))"])
        }
        // (Glibc's module does not export pipe2; a child spawned by another thread in between
        // could inherit an end, which only delays its end-of-file until that child exits.)
        for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        return (fds[0], fds[1])
    }
}
