import Foundation
import Testing

/// Seed 004 scenarios 1–4 and seed 000 test procedures 1–2, at a shell: log in once, and every
/// new process (a new terminal, after a reboot) is signed in.
@Suite("latchkey login: stays signed in across processes")
struct LoginPersistenceTests {
    @Test("signup, then login: a new process is signed in (status, token, whoami) without asking again")
    func loginPersistsAcrossProcesses() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }

        let signup = try await shell.signup(server, email: "ada@example.com", password: "correct horse battery")
        #expect(signup.status == 0, "\(signup.stderr)")
        #expect(signup.stdout.contains("Signed in to \(server.url) as ada@example.com"))

        let login = try await shell.login(server, email: "ada@example.com", password: "correct horse battery")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("as ada@example.com"))
        #expect(login.stdout.contains("encrypted file"))

        // "Close the terminal, open a new one": each of these is a new process.
        let status = try await shell.run(["status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("Signed in to \(server.url) as ada@example.com"))
        #expect(status.stdout.contains("server:        online"))
        #expect(status.stdout.contains("session age:"))
        #expect(status.stdout.contains("access token:  valid, expires in"))
        #expect(status.stdout.contains("credentials:   encrypted file"))

        let token = try await shell.token()
        #expect(token.split(separator: ".").count == 3, "a JWT")
        #expect(try await server.userStatus(accessToken: token) == 200, "the token works against the server")

        let whoami = try await shell.run(["whoami"])
        #expect(whoami.status == 0)
        #expect(whoami.stdout.hasPrefix("ada@example.com\n"))
        #expect(try await server.refreshCount() == 0, "a valid stored token costs no refresh")
        await server.discard()
    }

    @Test("nothing stored: status says not signed in, exit 1; token and whoami exit 1 too")
    func noSession() async throws {
        let shell = ClientSandbox()
        defer { shell.remove() }
        for command in [["status"], ["token"], ["whoami"]] {
            let result = try await shell.run(command)
            #expect(result.status == 1, "\(command): \(result.stderr)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr.contains("Not signed in."))
            #expect(result.stderr.contains("latchkey login"))
        }
        let json = try await shell.run(["status", "--json"])
        #expect(json.status == 1)
        #expect(json.stdout.contains("\"signed_in\" : false"))
    }

    @Test("--profile keeps several accounts side by side; LATCHKEY_PROFILE picks one")
    func profilesSideBySide() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        try await server.createUser(email: "work@example.com", password: "work password 1")
        try await server.createUser(email: "home@example.com", password: "home password 1")
        #expect(try await shell.login(server, email: "work@example.com", password: "work password 1", profile: "work").status == 0)
        #expect(try await shell.login(server, email: "home@example.com", password: "home password 1", profile: "home").status == 0)

        #expect(try await shell.run(["whoami", "--profile", "work"]).stdout.hasPrefix("work@example.com"))
        #expect(try await shell.run(["whoami", "--profile", "home"]).stdout.hasPrefix("home@example.com"))
        #expect(try await shell.run(["whoami"], environment: ["LATCHKEY_PROFILE": "home"]).stdout.hasPrefix("home@example.com"))
        #expect(try await shell.token(profile: "work") != shell.token(profile: "home"))
        #expect(try await shell.run(["status"]).status == 1, "the default profile is a third, empty one")

        #expect(try await shell.run(["logout", "--profile", "work"]).status == 0)
        #expect(try await shell.run(["status", "--profile", "work"]).status == 1)
        #expect(try await shell.run(["status", "--profile", "home"]).status == 0, "the other profile stays signed in")
        await server.discard()
    }

    @Test("signup needing email confirmation: told to confirm, login refused until then (exit 1)")
    func signupNeedingConfirmation() async throws {
        let server = try await ClientTestServer.start(autoconfirm: false)
        let shell = ClientSandbox()
        defer { shell.remove() }
        let signup = try await shell.signup(server, email: "new@example.com", password: "a fine password")
        #expect(signup.status == 0, "\(signup.stderr)")
        #expect(signup.stdout.contains("Check new@example.com for the confirmation link"))
        #expect(try await shell.run(["status"]).status == 1)

        // The server is remembered, so login needs no --server.
        let login = try await shell.run(["login", "--email", "new@example.com", "--password-stdin", "--store", "file"], input: "a fine password\n")
        #expect(login.status == 1)
        #expect(login.stderr.contains("Please verify your email address"))
        await server.discard()
    }
}
