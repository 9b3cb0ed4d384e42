import Foundation
import LatchkeyTestSupport
import Testing

/// At a real terminal: the password prompt does not echo, and a slow call shows a spinner
/// that clears its line.
@Suite("latchkey at a terminal: hidden password prompt, spinner")
struct TerminalPromptTests {
    @Test(
        "login on a terminal: asks for the email and the password, never echoes the password, spinner while signing in",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx"), "no pseudo-terminals (/dev/ptmx) here"))
    func hiddenPasswordPrompt() async throws {
        // The sign-in goes through a relay the test holds once the password is typed: the call
        // stays in flight until the spinner has been seen, however fast or loaded the machine.
        let server = try await ClientTestServer.start()
        let relay = try await TCPProxy.start(upstreamHost: "127.0.0.1", upstreamPort: server.server.port)
        let relayURL = "http://127.0.0.1:\(relay.port)"
        let shell = ClientSandbox()
        defer { shell.remove() }
        try await server.createUser(email: "tty@example.com", password: "typed secretly 7")

        let terminal = try PseudoTerminal(["login", "--server", relayURL, "--store", "file"], environment: ["LATCHKEY_HOME": shell.home.path])
        #expect(await terminal.waitFor("Email: "))
        terminal.type("tty@example.com\n")
        #expect(await terminal.waitFor("Password: "))
        relay.hold()
        terminal.type("typed secretly 7\n")
        #expect(await terminal.waitFor("Signing in…"), "a spinner while the sign-in is in flight: \(terminal.text)")
        relay.release()
        let status = await terminal.finish()
        let transcript = terminal.text
        #expect(status == 0, "\(transcript)")
        #expect(transcript.contains("tty@example.com"), "the email is echoed as typed")
        #expect(!transcript.contains("typed secretly"), "the password is never echoed: \(transcript)")
        #expect(transcript.contains("Signed in to \(relayURL) as tty@example.com."))
        #expect(transcript.contains("\r\u{1B}[K"), "and its line is cleared afterwards")
        #expect(try await shell.run(["status"]).status == 0)
        await relay.stop()
        await server.discard()
    }
}
