import Foundation
import LatchkeyTestSupport
import Testing

/// Seed 004 edge case 2 ("no internet"): a server that is down never costs the user the session.
@Suite("latchkey offline: server stopped, still signed in, works again after restart")
struct OfflineTests {
    @Test("server stopped: status signed in (offline, exit 0), token fails with a network error (exit 3), restart → works")
    func serverStoppedAndRestarted() async throws {
        // A token an hour long cannot come due while the offline commands run, however slow the
        // machine: the "still valid" half never depends on how fast processes start.
        var server = try await ClientTestServer.start(port: CommandRunner.freePort(), accessTokenTTL: 3600)
        let shell = ClientSandbox()
        defer { shell.remove() }
        #expect(try await shell.signup(server, email: "off@example.com", password: "offline password").status == 0)
        let before = try await shell.token()
        await server.stop()

        let offline = try await shell.run(["status"])
        #expect(offline.status == 0, "\(offline.stderr)")
        #expect(offline.stdout.contains("as off@example.com (offline)"))
        #expect(offline.stdout.contains("offline (cannot reach \(server.url))"))
        #expect(try await shell.token() == before, "a still-valid token is printed offline")

        // The "expired while offline" half: the same server (same port and database) issuing
        // two-second tokens, a fresh sign-in, the server stopped, then wait until the stored
        // token has expired — the condition the next assertions rely on.
        server = try await server.restarted(accessTokenTTL: 2)
        #expect(try await shell.login(server, email: "off@example.com", password: "offline password").status == 0)
        let shortLived = try await shell.token()
        await server.stop()
        var lastStatus = ""
        let expiredSeen = await eventually(timeout: 120) {
            lastStatus = (try? await shell.run(["status"]).stdout) ?? ""
            return lastStatus.contains("token:") && lastStatus.contains("expired ")
        }
        #expect(expiredSeen, "status never showed the two-second token as expired; last seen: \(lastStatus)")
        let token = try await shell.run(["token"])
        #expect(token.status == 3)
        #expect(token.stdout.isEmpty)
        #expect(token.stderr.contains("Could not reach the server (\(server.url))"))
        #expect(token.stderr.contains("Your session is kept"))
        let expired = try await shell.run(["status"])
        #expect(expired.status == 0, "still signed in with an expired token while offline")
        #expect(expired.stdout.contains("expired"))
        #expect(try await shell.run(["whoami"]).status == 3)

        // Back online (hour-long tokens again): the kept session is renewed.
        server = try await server.restarted(accessTokenTTL: 3600)
        let after = try await shell.token()
        #expect(after != shortLived)
        #expect(try await server.userStatus(accessToken: after) == 200)
        let online = try await shell.run(["status"])
        #expect(online.status == 0)
        #expect(online.stdout.contains("server:        online"))
        await server.discard()
    }

    @Test("login to a server that does not answer: exit 3 with a plain message, nothing saved")
    func loginUnreachable() async throws {
        let shell = ClientSandbox()
        defer { shell.remove() }
        let url = try "http://127.0.0.1:\(CommandRunner.freePort())"
        let result = try await shell.run(
            ["login", "--server", url, "--email", "a@example.com", "--password-stdin", "--store", "file"], input: "whatever pw\n")
        #expect(result.status == 3)
        #expect(result.stderr.contains("Could not reach the server (\(url))"))
        #expect(try await shell.run(["status"]).status == 1)
    }
}
