import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The command's standard streams: results on stdout, messages and prompts on stderr, so
/// `$(latchkey token)` captures the token and nothing else.
struct Terminal: Sendable {
    /// Whether stdin is a terminal (prompts are possible).
    let inputIsTerminal: Bool
    /// Whether stdout is a terminal.
    let outputIsTerminal: Bool
    /// Whether stderr is a terminal.
    let errorIsTerminal: Bool

    /// The process's own streams.
    static func standard() -> Terminal {
        Terminal(
            inputIsTerminal: isatty(STDIN_FILENO) == 1, outputIsTerminal: isatty(STDOUT_FILENO) == 1,
            errorIsTerminal: isatty(STDERR_FILENO) == 1)
    }

    /// Whether to show progress: only when a person is watching both streams. Quiet when
    /// stdout is piped or captured (`$(latchkey token)`), and in scripts and CI.
    var showsProgress: Bool { outputIsTerminal && errorIsTerminal }

    /// Prints a result line on stdout (unbuffered, so it is out before any exit).
    func output(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// Prints a message line on stderr.
    func message(_ line: String) {
        Self.writeError(line + "\n")
    }

    /// Writes `text` to stderr, unbuffered.
    static func writeError(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }

    /// Asks for a line on the terminal (the prompt on stderr). `nil` when stdin is not a
    /// terminal or has ended.
    func ask(_ prompt: String) -> String? {
        guard inputIsTerminal else { return nil }
        Self.writeError(prompt)
        return readLine(strippingNewline: true)
    }

    /// Asks for a secret without echoing it (see ``SecretPrompt``). `nil` when stdin is not a
    /// terminal or has ended.
    func askSecret(_ prompt: String) -> String? {
        guard inputIsTerminal else { return nil }
        return SecretPrompt.read(prompt: prompt)
    }

    /// Reads the first line of stdin (`--password-stdin`), without its line ending.
    func readStandardInputLine() -> String? {
        guard let line = readLine(strippingNewline: true) else { return nil }
        return line.hasSuffix("\r") ? String(line.dropLast()) : line
    }

    /// Runs `body`, showing `label` with a spinner on stderr if it takes more than a moment and
    /// ``showsProgress`` allows; the line is cleared afterwards.
    func progress<T>(_ label: String, _ body: () async throws -> T) async throws -> T {
        guard showsProgress else { return try await body() }
        let spinner = Spinner.start(label)
        let result: Result<T, any Error>
        do {
            result = .success(try await body())
        } catch {
            result = .failure(error)
        }
        await spinner.stop()
        return try result.get()
    }
}
