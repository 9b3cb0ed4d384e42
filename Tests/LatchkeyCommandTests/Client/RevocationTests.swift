import Foundation
import Testing

/// Seed 004 edge cases 3–4 (account deleted, admin revokes the session) and seed 000 test
/// procedure 3 (revoked token → the login screen, here "not signed in").
@Suite("latchkey revocation: a session ended elsewhere signs out, with the reason")
struct RevocationTests {
    @Test("revoked by an admin: the next refresh signs out with the reason (exit 1), and stays signed out")
    func revokedSessionSignsOutOnRefresh() async throws {
        // A two-second token: the next `token` finds it expired and refreshes (however slowly
        // the commands start, waiting only makes it more expired).
        let server = try await ClientTestServer.start(accessTokenTTL: 2)
        let shell = ClientSandbox()
        defer { shell.remove() }
        #expect(try await shell.signup(server, email: "rev@example.com", password: "revoke password").status == 0)
        try await server.revokeSessions(email: "rev@example.com")
        await waitUntilExpired(issuedBefore: Date(), lifetime: 2)

        let token = try await shell.run(["token"])
        #expect(token.status == 1)
        #expect(token.stdout.isEmpty)
        #expect(token.stderr.contains("Your session has ended: it was signed out or revoked on the server."))
        #expect(token.stderr.contains("latchkey login"))

        let status = try await shell.run(["status"])
        #expect(status.status == 1)
        #expect(status.stderr.contains("Not signed in."))
        #expect(
            !FileManager.default.fileExists(atPath: shell.profileDirectory().appendingPathComponent("credentials/session.sealed").path),
            "the dead session is wiped")
        await server.discard()
    }

    @Test("revoked while the access token is still valid: whoami and status notice at once (exit 1)")
    func revokedSessionNoticedByWhoami() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        #expect(try await shell.signup(server, email: "now@example.com", password: "revoke password").status == 0)
        #expect(try await shell.login(server, email: "now@example.com", password: "revoke password", profile: "second").status == 0)
        try await server.revokeSessions(email: "now@example.com")

        let whoami = try await shell.run(["whoami"])
        #expect(whoami.status == 1)
        #expect(whoami.stderr.contains("Your session has ended"))
        #expect(try await shell.run(["status"]).status == 1)

        let status = try await shell.run(["status", "--profile", "second"])
        #expect(status.status == 1)
        #expect(status.stderr.contains("Your session has ended"))
        #expect(try await shell.run(["token", "--profile", "second"]).status == 1)
        await server.discard()
    }

    @Test("account deleted on the server: whoami signs out (exit 1)")
    func deletedAccount() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        #expect(try await shell.signup(server, email: "gone@example.com", password: "delete password").status == 0)
        try await server.deleteUser(email: "gone@example.com")
        let whoami = try await shell.run(["whoami"])
        #expect(whoami.status == 1)
        #expect(whoami.stderr.contains("Your session has ended"))
        #expect(try await shell.run(["status"]).status == 1)
        await server.discard()
    }
}
