import Foundation
import LatchkeyServer
import Testing

/// `latchkey login --code` and `latchkey reset-password`: the server mails a six-digit code,
/// read here from its outbox folder, as a user would read their mail.
@Suite("latchkey email codes: login --code and reset-password")
struct EmailCodeTests {
    static let hasTerminals = FileManager.default.fileExists(atPath: "/dev/ptmx")

    @Test("login --send-code, then --otp: a wrong code is refused (exit 1), the right one signs in and creates the account")
    func sendThenOTP() async throws {
        let server = try await ClientTestServer.start(autoconfirm: false)
        let shell = ClientSandbox()
        defer { shell.remove() }
        let email = "coder@example.com"
        let sent = try await shell.run(["login", "--code", "--send-code", "--server", server.url, "--email", email, "--store", "file"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains("Check \(email) for a sign-in code."))
        #expect(sent.stdout.contains("outbox"), "a loopback server: says where an SMTP-less server puts mail: \(sent.stdout)")
        #expect(sent.stdout.contains("--otp CODE"))
        let code = try await server.newEmailCode(to: email, after: 0)

        let wrong = try await shell.run([
            "login", "--server", server.url, "--email", email, "--otp", code == "000000" ? "111111" : "000000", "--store", "file",
        ])
        #expect(wrong.status == 1)
        #expect(wrong.stderr.contains("That code is wrong or has expired."))
        #expect(try await shell.run(["status"]).status == 1)

        let malformed = try await shell.run(["login", "--server", server.url, "--email", email, "--otp", "12ab", "--store", "file"])
        #expect(malformed.status == 2)

        let login = try await shell.run(["login", "--server", server.url, "--email", email, "--otp", code, "--store", "file"])
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Signed in to \(server.url) as \(email)."))
        #expect(!login.stdout.contains(code) && !login.stderr.contains(code), "the code is not echoed")
        let token = try await shell.token()
        #expect(try await server.userStatus(accessToken: token) == 200)
        #expect(!(try shell.containsInPlainText(code)), "the code is not kept")

        let reused = try await shell.run(["login", "--server", server.url, "--email", email, "--otp", code, "--store", "file"])
        #expect(reused.status == 1, "a code works once")
        await server.discard()
    }

    @Test("login --code --code-stdin: the code is read from stdin after the mail is sent; an existing account, autoconfirm")
    func codeOnStandardInput() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let email = "piped@example.com"
        try await server.createUser(email: email, password: "piped password 1")
        let before = try server.mailCount(to: email)
        let (running, input) = try shell.startWithPipe(["login", "--code-stdin", "--server", server.url, "--email", email, "--store", "file"])
        let code = try await server.newEmailCode(to: email, after: before)
        input.write(Data("\(code)\n".utf8))
        #expect(await running.wait(upTo: 120))
        let result = await running.result()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("Check \(email) for a sign-in code."))
        #expect(result.stdout.contains("Signed in to \(server.url) as \(email)."))
        #expect(try await shell.run(["whoami"]).stdout.contains(email))
        let stored = try FileManager.default.contentsOfDirectory(atPath: shell.profileDirectory().appendingPathComponent("credentials").path)
        #expect(!stored.contains { $0.contains("pkce") }, "the mail link's verifier is not left behind: \(stored)")
        await server.discard()
    }

    @Test("login --code --no-create: nothing mailed and no account for an unknown address, and the answer does not tell")
    func noCreate() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let email = "nobody@example.com"
        let sent = try await shell.run(["login", "--send-code", "--no-create", "--server", server.url, "--email", email, "--store", "file"])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains("if it has an account here"))
        try await Task.sleep(for: .milliseconds(500))
        #expect(try server.mailCount(to: email) == 0)
        await #expect(throws: (any Error).self) { try await server.userID(email: email) }
        let conflicting = try await shell.run(["login", "--no-create", "--server", server.url, "--email", email, "--password-stdin"], input: "pw\n")
        #expect(conflicting.status == 2, "--no-create goes with --code")
        await server.discard()
    }

    @Test(
        "login --code at a terminal: asks for the email and the code, a wrong code is asked again, then signed in",
        .enabled(if: hasTerminals, "no pseudo-terminals (/dev/ptmx) here"))
    func codeAtTerminal() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let email = "tty-code@example.com"
        let terminal = try PseudoTerminal(
            ["login", "--code", "--server", server.url, "--store", "file"], environment: ["LATCHKEY_HOME": shell.home.path])
        #expect(await terminal.waitFor("Email: "))
        terminal.type("not-an-address\n")
        #expect(await terminal.waitFor("is not an email address. Try again."), "checked before anything is sent: \(terminal.text)")
        terminal.type("\(email)\n")
        #expect(await terminal.waitFor("Code from the email: ", upTo: 90), "\(terminal.text)")
        let code = try await server.newEmailCode(to: email, after: 0)
        terminal.type("\(code == "000000" ? "111111" : "000000")\n")
        #expect(await terminal.waitFor("That code is wrong or has expired. Check the newest email and try again.", upTo: 90), "\(terminal.text)")
        terminal.type("\(code)\n")
        let status = await terminal.finish(upTo: 120)
        #expect(status == 0, "\(terminal.text)")
        #expect(terminal.text.contains("Signed in to \(server.url) as \(email)."))
        #expect(try await shell.run(["status"]).status == 0)
        await server.discard()
    }

    @Test("reset-password for scripts: --send-code, then --otp with --password-stdin; a weak password does not spend the code; old password refused")
    func resetPasswordScripted() async throws {
        let server = try await ClientTestServer.start { $0.minimumPasswordLength = 12 }
        let shell = ClientSandbox()
        defer { shell.remove() }
        let email = "forgetful@example.com"
        try await server.createUser(email: email, password: "the old password")
        let wrongPassword = try await shell.login(server, email: email, password: "what was it again")
        #expect(wrongPassword.stderr.contains("latchkey reset-password"), "the invalid-credentials hint names the command: \(wrongPassword.stderr)")
        #expect(!wrongPassword.stderr.contains("Forgot Password?"))

        let sent = try await shell.run(["reset-password", "--send-code", "--server", server.url, "--email", email])
        #expect(sent.status == 0, "\(sent.stderr)")
        #expect(sent.stdout.contains("password-reset code"))
        let code = try await server.newEmailCode(to: email, after: 0)

        let weak = try await shell.run(
            ["reset-password", "--server", server.url, "--email", email, "--otp", code, "--password-stdin", "--store", "file"], input: "short one\n")
        #expect(weak.status == 2)
        #expect(weak.stderr.contains("at least 12 characters"), "the rule from GET /settings: \(weak.stderr)")

        let reset = try await shell.run(
            ["reset-password", "--server", server.url, "--email", email, "--otp", code, "--password-stdin", "--store", "file"],
            input: "a much longer new password\n")
        #expect(reset.status == 0, "\(reset.stderr)")
        #expect(reset.stdout.contains("Password changed. Signed in to \(server.url) as \(email)."))
        #expect(try await shell.run(["status"]).status == 0, "signed in with the new password's session")
        #expect(!(try shell.containsInPlainText("a much longer new password")))

        let other = ClientSandbox()
        defer { other.remove() }
        #expect(try await other.login(server, email: email, password: "the old password").status == 1)
        #expect(try await other.login(server, email: email, password: "a much longer new password").status == 0)
        await server.discard()
    }

    @Test("reset-password --code-stdin --password-stdin: the code, then the new password, from stdin; the remembered email")
    func resetPasswordPiped() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let email = "piped-reset@example.com"
        try await server.createUser(email: email, password: "first password 1")
        #expect(try await shell.login(server, email: email, password: "first password 1").status == 0)
        let before = try server.mailCount(to: email)
        let (running, input) = try shell.startWithPipe(["reset-password", "--code-stdin", "--password-stdin"])
        let code = try await server.newEmailCode(to: email, after: before)
        input.write(Data("\(code)\nsecond password 2\n".utf8))
        #expect(await running.wait(upTo: 120))
        let result = await running.result()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("using the email this profile remembers: \(email)"))
        #expect(try await shell.login(server, email: email, password: "second password 2").status == 0)
        await server.discard()
    }

    @Test(
        "reset-password at a terminal: email (remembered), code, new password twice with the rule named, then signed in",
        .enabled(if: hasTerminals, "no pseudo-terminals (/dev/ptmx) here"))
    func resetPasswordAtTerminal() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let email = "tty-reset@example.com"
        try await server.createUser(email: email, password: "old tty password")
        #expect(try await shell.login(server, email: email, password: "old tty password").status == 0)
        _ = try await shell.run(["logout"])
        let terminal = try PseudoTerminal(["reset-password", "--store", "file"], environment: ["LATCHKEY_HOME": shell.home.path])
        #expect(await terminal.waitFor("Email [\(email)]: "))
        terminal.type("\n")
        #expect(await terminal.waitFor("Code from the email: ", upTo: 90), "\(terminal.text)")
        let code = try await server.newEmailCode(to: email, after: 0)
        terminal.type("\(code)\n")
        #expect(await terminal.waitFor("New password (at least 8 characters): ", upTo: 90), "\(terminal.text)")
        terminal.type("short\n")
        #expect(await terminal.waitFor("this server requires at least 8 characters. Try again."), "\(terminal.text)")
        #expect(await terminal.waitFor("New password (at least 8 characters): ", count: 2))
        terminal.type("new tty password\n")
        #expect(await terminal.waitFor("Repeat new password: "))
        terminal.type("new tty password\n")
        let status = await terminal.finish(upTo: 120)
        #expect(status == 0, "\(terminal.text)")
        #expect(terminal.text.contains("Password changed."))
        #expect(!terminal.text.contains("new tty password"), "never echoed")
        let other = ClientSandbox()
        defer { other.remove() }
        #expect(try await other.login(server, email: email, password: "new tty password").status == 0)
        await server.discard()
    }
}
