import Foundation
import Testing

/// At a real terminal: the password prompt does not echo, and a slow call shows a spinner
/// that clears its line.
@Suite("latchkey at a terminal: hidden password prompt, spinner")
struct TerminalPromptTests {
    @Test(
        "login on a terminal: asks for the email and the password, never echoes the password, spinner while signing in",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx"), "no pseudo-terminals (/dev/ptmx) here"))
    func hiddenPasswordPrompt() async throws {
        // A slow password hash (bcrypt cost 13) makes the sign-in take long enough to spin.
        let server = try await ClientTestServer.start(configure: { $0.bcryptCost = 13 })
        let shell = ClientSandbox()
        defer { shell.remove() }
        try await server.createUser(email: "tty@example.com", password: "typed secretly 7")

        let terminal = try PseudoTerminal(["login", "--server", server.url, "--store", "file"], environment: ["LATCHKEY_HOME": shell.home.path])
        #expect(await terminal.waitFor("Email: "))
        terminal.type("tty@example.com\n")
        #expect(await terminal.waitFor("Password: "))
        terminal.type("typed secretly 7\n")
        let status = await terminal.finish()
        let transcript = terminal.text
        #expect(status == 0, "\(transcript)")
        #expect(transcript.contains("tty@example.com"), "the email is echoed as typed")
        #expect(!transcript.contains("typed secretly"), "the password is never echoed: \(transcript)")
        #expect(transcript.contains("Signed in to \(server.url) as tty@example.com."))
        #expect(transcript.contains("Signing in…"), "a spinner while the slow sign-in runs: \(transcript)")
        #expect(transcript.contains("\r\u{1B}[K"), "and its line is cleared afterwards")
        #expect(try await shell.run(["status"]).status == 0)
        await server.discard()
    }
}
