import Foundation
import Testing

/// Seed 004 scenario 3 and seed 000 test 2: logging out ends the session on the server and
/// leaves nothing behind; a relaunch is signed out.
@Suite("latchkey logout: server session ended, local state gone")
struct LogoutTests {
    @Test("logout: the server ends the session, the credentials are gone, a new process is signed out")
    func logoutEndsEverything() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        #expect(try await shell.signup(server, email: "bye@example.com", password: "logout password").status == 0)
        let token = try await shell.token()
        #expect(try await server.userStatus(accessToken: token) == 200)

        let logout = try await shell.run(["logout"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(logout.stdout.contains("Signed out of \(server.url)."))
        #expect(try await server.userStatus(accessToken: token) == 403, "the server ended the session")
        #expect(try await server.auditActions().contains("logout"))

        #expect(!FileManager.default.fileExists(atPath: shell.profileDirectory().appendingPathComponent("credentials").path))
        for entry in try shell.entries() where !entry.isDirectory {
            #expect(entry.path.hasSuffix("profile.json") || entry.path.hasSuffix("refresh.lock"), "left behind: \(entry.path)")
        }
        let status = try await shell.run(["status"])
        #expect(status.status == 1)
        #expect(try await shell.run(["token"]).status == 1)

        let again = try await shell.run(["logout"])
        #expect(again.status == 0, "logging out twice is fine")
        await server.discard()
    }

    @Test("logout with the server down: exit 0, says so, local session gone")
    func logoutOffline() async throws {
        // A port below the ephemeral range: no other test's server can be given it once stopped.
        let server = try await ClientTestServer.start(port: CommandRunner.freePort())
        let shell = ClientSandbox()
        defer { shell.remove() }
        #expect(try await shell.signup(server, email: "away@example.com", password: "logout password").status == 0)
        await server.stop()

        let logout = try await shell.run(["logout"])
        #expect(logout.status == 0)
        #expect(logout.stdout.contains("Signed out on this computer."))
        #expect(logout.stderr.contains("could not be reached"))
        #expect(logout.stderr.contains("the session is still active there"), "what is true, not 'until it expires': \(logout.stderr)")
        #expect(logout.stderr.contains("sessions do not expire by default"))
        #expect(logout.stderr.contains("latchkey logout --scope global"))
        #expect(try await shell.run(["status"]).status == 1)
        #expect(!FileManager.default.fileExists(atPath: shell.profileDirectory().appendingPathComponent("credentials").path))
        await server.discard()
    }

    @Test("--scope global ends every session of the account; --scope others keeps this one")
    func scopes() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        try await server.createUser(email: "multi@example.com", password: "multi password")
        for profile in ["a", "b", "c"] {
            #expect(try await shell.login(server, email: "multi@example.com", password: "multi password", profile: profile).status == 0)
        }

        let others = try await shell.run(["logout", "--scope", "others", "--profile", "a"])
        #expect(others.status == 0, "\(others.stderr)")
        #expect(others.stdout.contains("this one stays signed in"))
        #expect(try await shell.run(["whoami", "--profile", "a"]).status == 0)
        #expect(try await shell.run(["whoami", "--profile", "b"]).status == 1)

        #expect(try await shell.login(server, email: "multi@example.com", password: "multi password", profile: "c").status == 0)
        let global = try await shell.run(["logout", "--scope", "global", "--profile", "a"])
        #expect(global.status == 0)
        #expect(global.stdout.contains("everywhere"))
        #expect(try await shell.run(["whoami", "--profile", "c"]).status == 1)
        #expect(try await shell.run(["status", "--profile", "a"]).status == 1)
        await server.discard()
    }
}
