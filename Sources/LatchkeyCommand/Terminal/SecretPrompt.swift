import Dispatch
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A password prompt that does not echo what is typed (termios `ECHO` off), and puts the
/// terminal back even when the user presses Ctrl-C.
enum SecretPrompt {
    /// Shows `prompt` on stderr and reads one line from the terminal on stdin without echo.
    /// `nil` at end of input.
    ///
    /// Echo goes off before the prompt is shown, and no switch of the terminal's mode discards
    /// input (`TCSANOW`, `TCSADRAIN`, never `TCSAFLUSH`): a password typed or pasted the moment
    /// the prompt appears is read, never echoed, never lost.
    static func read(prompt: String) -> String? {
        var original = termios()
        guard tcgetattr(STDIN_FILENO, &original) == 0 else {
            Terminal.writeError(prompt)
            return readLine(strippingNewline: true)
        }
        var silent = original
        silent.c_lflag &= ~tcflag_t(ECHO)
        silent.c_lflag |= tcflag_t(ECHONL)

        // Ctrl-C while echo is off: restore the terminal, then exit as SIGINT would (130).
        let saved = original
        signal(SIGINT, SIG_IGN)
        let interrupt = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global())
        interrupt.setEventHandler {
            var restore = saved
            _ = tcsetattr(STDIN_FILENO, TCSANOW, &restore)
            Terminal.writeError("\n")
            exit(130)
        }
        interrupt.resume()
        _ = tcsetattr(STDIN_FILENO, TCSANOW, &silent)
        defer {
            _ = tcsetattr(STDIN_FILENO, TCSADRAIN, &original)
            interrupt.cancel()
            signal(SIGINT, SIG_DFL)
        }
        Terminal.writeError(prompt)
        return readLine(strippingNewline: true)
    }
}
