import Foundation
import LatchkeyServer
import Testing

/// Plain-language errors from the taxonomy on stderr, documented exit codes, never a stack
/// trace; no spinner when nobody is watching.
@Suite("latchkey errors: plain words, documented exit codes")
struct ErrorReportingTests {
    @Test("wrong password: clear message, exit 1, not signed in, nothing stored")
    func wrongPassword() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        try await server.createUser(email: "pw@example.com", password: "the right one")
        let login = try await shell.login(server, email: "pw@example.com", password: "the wrong one")
        #expect(login.status == 1)
        #expect(login.stdout.isEmpty)
        #expect(login.stderr.contains("Incorrect email or password."))
        #expect(!login.stderr.contains("invalid_credentials"), "no raw server code")
        #expect(!login.stderr.contains("\r"), "no spinner when output is not a terminal")
        #expect(try await shell.run(["status"]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: shell.profileDirectory().appendingPathComponent("credentials/session.sealed").path))
        await server.discard()
    }

    @Test("too many attempts: the rate-limit message and the wait, exit 4")
    func rateLimited() async throws {
        var limits = RateLimitConfiguration()
        limits.failedPasswordAttemptsPerAccount = .init(count: 2, per: 300)
        let server = try await ClientTestServer.start(rateLimits: limits)
        let shell = ClientSandbox()
        defer { shell.remove() }
        try await server.createUser(email: "rl@example.com", password: "the right one")
        var last: CommandRunner.Result?
        for _ in 0..<4 {
            last = try await shell.login(server, email: "rl@example.com", password: "the wrong one")
            if last?.status != 1 { break }
        }
        let result = try #require(last)
        #expect(result.status == 4, "\(result.stderr)")
        #expect(result.stderr.contains("Too many login attempts. Please wait a few minutes and try again."))
        #expect(result.stderr.contains("The server asks to wait"))
        await server.discard()
    }

    @Test("usage errors exit 2 with a message: bad option values, no terminal for the password, bad URL, weak password")
    func usageErrors() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let cases: [([String], String?, String)] = [
            (["status", "--store", "vault"], nil, "--store"),
            (["status", "--profile", "../etc"], nil, "--profile"),
            (["token", "--min-ttl", "-5"], nil, "--min-ttl"),
            (["logout", "--scope", "everyone"], nil, "--scope"),
            (["frobnicate"], nil, "frobnicate"),
            (["login", "--server", server.url, "--email", "a@example.com"], nil, "--password-stdin"),
            (["login", "--server", server.url, "--password-stdin"], "pw\n", "--email"),
            (["login", "--server", "ftp://example.com", "--email", "a@example.com", "--password-stdin"], "pw\n", "not a server URL"),
            (["login", "--server", server.url, "--email", "a@example.com", "--password-stdin"], "", "no password"),
            (["signup", "--server", server.url, "--email", "weak@example.com", "--password-stdin", "--store", "file"], "abc\n", "too weak"),
        ]
        for (arguments, input, expected) in cases {
            let result = try await shell.run(arguments, input: input)
            #expect(result.status == 2, "\(arguments): \(result.stderr)")
            #expect(result.stderr.localizedCaseInsensitiveContains(expected), "\(arguments): \(result.stderr)")
        }
        await server.discard()
    }

    @Test("--help documents the exit codes; --version answers")
    func helpAndVersion() async throws {
        let shell = ClientSandbox()
        let help = try await shell.run(["--help"])
        #expect(help.status == 0)
        for command in ["signup", "login", "status", "token", "whoami", "logout", "serve", "keys"] {
            #expect(help.stdout.contains(command))
        }
        #expect(help.stdout.contains("Exit codes: 0 ok; 1 not signed in"))
        #expect(help.stdout.contains("LATCHKEY_HOME"))
        #expect(try await shell.run(["--version"]).status == 0)
        #expect(try await shell.run(["login", "--help"]).stdout.contains("--password-stdin"))
    }
}
