import Foundation
import LatchkeyTestSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs `latchkey` on a pseudo-terminal, as a person at a terminal would: stdin, stdout and
/// stderr are the terminal, so prompts, echo and the spinner behave as they do for real.
final class PseudoTerminal: @unchecked Sendable {
    private let master: Int32
    private let slave: Int32
    private var transcript = Data()
    let process: ChildProcess

    /// Starts `latchkey arguments…` on a new pseudo-terminal.
    init(_ arguments: [String], environment: [String: String]) throws {
        // posix_openpt and friends need _XOPEN_SOURCE, which the Glibc module does not set:
        // look them up in the C library instead.
        typealias OpenPT = @convention(c) (Int32) -> Int32
        typealias Grant = @convention(c) (Int32) -> Int32
        typealias Name = @convention(c) (Int32) -> UnsafeMutablePointer<CChar>?
        guard let library = dlopen(nil, RTLD_NOW),
            let openSymbol = dlsym(library, "posix_openpt"), let grantSymbol = dlsym(library, "grantpt"),
            let unlockSymbol = dlsym(library, "unlockpt"), let nameSymbol = dlsym(library, "ptsname")
        else { throw PseudoTerminalError("no pseudo-terminal functions") }
        master = unsafeBitCast(openSymbol, to: OpenPT.self)(O_RDWR | O_NOCTTY)
        guard master >= 0, unsafeBitCast(grantSymbol, to: Grant.self)(master) == 0,
            unsafeBitCast(unlockSymbol, to: Grant.self)(master) == 0,
            let name = unsafeBitCast(nameSymbol, to: Name.self)(master)
        else {
            throw PseudoTerminalError("cannot open a pseudo-terminal")
        }
        slave = open(String(cString: name), O_RDWR | O_NOCTTY)
        guard slave >= 0 else { throw PseudoTerminalError("cannot open the terminal side") }
        _ = fcntl(master, F_SETFL, fcntl(master, F_GETFL) | O_NONBLOCK)

        var variables = ProcessInfo.processInfo.environment
        for key in ClientSandbox.ambient + ["LATCHKEY_JWT_SECRET"] { variables.removeValue(forKey: key) }
        for (key, value) in environment { variables[key] = value }
        variables["TERM"] = "xterm"
        // As in ClientSandbox: a loaded machine can take longer than the 10 s default to answer.
        var arguments = arguments
        if let command = arguments.first, ClientSandbox.clientCommands.contains(command), !arguments.contains("--timeout") {
            arguments += ["--timeout", "60"]
        }
        process = try ChildProcess(
            executable: CommandRunner.executable.path, arguments: arguments, environment: variables,
            standardInput: slave, standardOutput: slave, standardError: slave)
    }

    deinit {
        close(master)
        close(slave)
    }

    /// Everything the terminal showed so far.
    var text: String {
        drain()
        return String(decoding: transcript, as: UTF8.self)
    }

    /// Waits until the terminal has shown `needle` `count` times (or `seconds` pass). A prompt
    /// that comes again is waited for by its count: the transcript still holds the first one.
    /// (A password can be typed as soon as its prompt shows: echo is off before it is written.)
    func waitFor(_ needle: String, count: Int = 1, upTo seconds: Double = 120) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if occurrences(of: needle) >= count { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return occurrences(of: needle) >= count
    }

    private func occurrences(of needle: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// Types `text` on the keyboard.
    func type(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { write(master, $0.baseAddress, $0.count) }
    }

    /// Waits for the process to exit; returns its status.
    func finish(upTo seconds: Double = 120) async -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline {
            drain()
            try? await Task.sleep(for: .milliseconds(20))
        }
        drain()
        return process.isRunning ? nil : process.terminationStatus
    }

    private func drain() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(master, &buffer, buffer.count)
            guard count > 0 else { return }
            transcript.append(contentsOf: buffer[0..<count])
        }
    }
}

struct PseudoTerminalError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
