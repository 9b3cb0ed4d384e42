import Foundation
import LatchkeyServer
import Testing

/// The terminal app guides a first-time user: typos in command names, emails checked before
/// passwords, the password rule named, where the mail went, and what logout offline means.
@Suite("latchkey guidance: suggestions, early checks, honest messages")
struct TerminalGuidanceTests {
    @Test("a mistyped command suggests the nearest one; nonsense lists the commands; exit 2")
    func commandSuggestions() async throws {
        let shell = ClientSandbox()
        defer { shell.remove() }
        for (typed, expected) in [
            ("logn", "login"), ("lgoin", "login"), ("stauts", "status"), ("sigup", "signup"), ("whomai", "whoami"), ("reset", "reset-password"),
            ("tokne", "token"),
        ] {
            let result = try await shell.run([typed])
            #expect(result.status == 2, "\(typed): \(result.stderr)")
            #expect(result.stderr.contains("'\(typed)' is not a latchkey command. Did you mean '\(expected)'?"), "\(typed): \(result.stderr)")
        }
        let nonsense = try await shell.run(["frobnicate"])
        #expect(nonsense.status == 2)
        #expect(!nonsense.stderr.contains("Did you mean"))
        #expect(nonsense.stderr.contains("login") && nonsense.stderr.contains("reset-password"))
        // Options and real commands are untouched.
        #expect(try await shell.run(["login", "--help"]).status == 0)
        #expect(try await shell.run(["status", "--bogus"]).status == 2)
    }

    @Test("the email is checked before the password is read; --password-stdin uses the profile's remembered email")
    func emailFirstAndRemembered() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let bad = try await shell.run(["login", "--server", server.url, "--email", "ada@localhost", "--password-stdin"], input: "pw\n")
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("'ada@localhost' is not an email address."))
        #expect(try await server.auditActions().isEmpty, "nothing was sent")

        try await server.createUser(email: "remember@example.com", password: "remembered password")
        #expect(try await shell.login(server, email: "remember@example.com", password: "remembered password").status == 0)
        #expect(try await shell.run(["logout"]).status == 0)
        let again = try await shell.run(["login", "--password-stdin"], input: "remembered password\n")
        #expect(again.status == 0, "\(again.stderr)")
        #expect(again.stderr.contains("using the email this profile remembers: remember@example.com"))
        #expect(again.stdout.contains("Signed in to \(server.url) as remember@example.com."))
        await server.discard()
    }

    @Test("signup names the server's password rule (from GET /settings) when the password is too short")
    func passwordRuleNamed() async throws {
        let server = try await ClientTestServer.start { $0.minimumPasswordLength = 14 }
        let shell = ClientSandbox()
        defer { shell.remove() }
        let weak = try await shell.signup(server, email: "rule@example.com", password: "only 13 chars")
        #expect(weak.status == 2)
        #expect(weak.stderr.contains("too weak: this server requires at least 14 characters"), "\(weak.stderr)")
        #expect(try await shell.signup(server, email: "rule@example.com", password: "fourteen chars").status == 0)
        await server.discard()
    }

    @Test("signup of a taken address: with autoconfirm the server says so (after the prompts), with a reset-password hint")
    func existingAccount() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        try await server.createUser(email: "taken@example.com", password: "taken password")
        let result = try await shell.signup(server, email: "taken@example.com", password: "another password")
        #expect(result.status == 4)
        #expect(result.stderr.contains("An account with this email already exists."))
        #expect(result.stderr.contains("latchkey reset-password"))
        await server.discard()
    }

    @Test(
        "signup at a terminal: a profile that signed in with this email says so before any password prompt",
        .enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx"), "no pseudo-terminals (/dev/ptmx) here"))
    func existingAccountKnownLocally() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        try await server.createUser(email: "known@example.com", password: "known password")
        #expect(try await shell.login(server, email: "known@example.com", password: "known password").status == 0)
        let terminal = try PseudoTerminal(["signup", "--store", "file"], environment: ["LATCHKEY_HOME": shell.home.path])
        #expect(await terminal.waitFor("Email [known@example.com]: "))
        terminal.type("\n")
        #expect(await terminal.waitFor("Create a new account anyway? [y/N] "), "\(terminal.text)")
        #expect(terminal.text.contains("so that account probably exists"))
        #expect(!terminal.text.contains("Password"), "asked before any password")
        terminal.type("\n")
        #expect(await terminal.finish() == 2)
        #expect(terminal.text.contains("No account created."))
        await server.discard()
    }

    @Test("signup without autoconfirm: honest about existing addresses, and says where an SMTP-less local server puts the mail")
    func confirmationMail() async throws {
        let server = try await ClientTestServer.start(autoconfirm: false)
        let shell = ClientSandbox()
        defer { shell.remove() }
        let result = try await shell.signup(server, email: "mail@example.com", password: "confirm me please")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Check mail@example.com for the confirmation link"))
        #expect(result.stdout.contains("outbox/ folder of its --data-dir"))
        #expect(result.stdout.contains("Unless mail@example.com already has an account"))
        #expect(try server.mailCount(to: "mail@example.com") == 1)
        await server.discard()
    }
}
