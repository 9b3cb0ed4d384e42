import Foundation
import LatchkeyServer
import Testing

/// `latchkey account delete` against a server with `--allow-self-deletion`.
@Suite("latchkey account delete")
struct AccountDeleteTests {
    @Test("without a terminal: the first run mails a code, the second deletes with it; the account and the local session are gone")
    func deleteWithMailedCode() async throws {
        let server = try await ClientTestServer.start(configure: { $0.allowSelfDeletion = true })
        let shell = ClientSandbox()
        defer { shell.remove() }
        #expect(try await shell.signup(server, email: "gone@example.com", password: "delete password").status == 0)
        let token = try await shell.token()

        let unconfirmed = try await shell.run(["account", "delete"])
        #expect(unconfirmed.status != 0)
        #expect(unconfirmed.stderr.contains("--yes"), "\(unconfirmed.stderr)")
        #expect(try await server.userStatus(accessToken: token) == 200, "nothing deleted")

        let mails = try server.mailCount(to: "gone@example.com")
        let first = try await shell.run(["account", "delete", "--yes"])
        #expect(first.status != 0)
        #expect(first.stderr.contains("--code"), "\(first.stderr)")
        let code = try await server.newEmailCode(to: "gone@example.com", after: mails)
        #expect(try await server.userStatus(accessToken: token) == 200, "nothing deleted yet")

        let deleted = try await shell.run(["account", "delete", "--yes", "--code", code])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.stdout.contains("Deleted gone@example.com"))
        #expect(try await server.userStatus(accessToken: token) == 403)
        #expect(try await server.auditActions().contains("user_deleted"))
        #expect(!FileManager.default.fileExists(atPath: shell.profileDirectory().appendingPathComponent("credentials").path))
        #expect(try await shell.run(["status"]).status == 1)
        await server.discard()
    }

    @Test("a wrong code deletes nothing and keeps the session")
    func wrongCode() async throws {
        let server = try await ClientTestServer.start(configure: { $0.allowSelfDeletion = true })
        let shell = ClientSandbox()
        defer { shell.remove() }
        #expect(try await shell.signup(server, email: "stays@example.com", password: "delete password").status == 0)
        let token = try await shell.token()
        _ = try await shell.run(["account", "delete", "--yes"])
        let refused = try await shell.run(["account", "delete", "--yes", "--code", "000000"])
        #expect(refused.status != 0)
        #expect(try await server.userStatus(accessToken: token) == 200)
        #expect(try await shell.run(["status"]).status == 0)
        await server.discard()
    }
}
