import Foundation
import Testing

/// Where the commands keep state, and that nothing secret is readable there.
@Suite("latchkey state directory: LATCHKEY_HOME, modes, no secrets in plain text")
struct StateDirectoryTests {
    @Test("directories 0700, files 0600, no token or password in any file (file store)")
    func modesAndNoPlainTextSecrets() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox()
        defer { shell.remove() }
        let password = "plain text never 42"
        #expect(try await shell.signup(server, email: "ops@example.com", password: password).status == 0)
        let token = try await shell.token()
        _ = try await shell.run(["status"])

        let entries = try shell.entries()
        #expect(entries.contains { $0.path.hasSuffix("profiles/default/profile.json") })
        #expect(entries.contains { $0.path.hasSuffix("profiles/default/credentials/session.sealed") })
        for entry in entries {
            #expect(entry.mode == (entry.isDirectory ? 0o700 : 0o600), "\(entry.path) has mode \(String(entry.mode, radix: 8))")
        }
        #expect(try !shell.containsInPlainText(token), "the access token is stored sealed only")
        #expect(try !shell.containsInPlainText(password))
        #expect(try !shell.containsInPlainText("refresh_token"))
        #expect(try !shell.containsInPlainText("eyJ"), "no JWT anywhere in the clear")

        let profile = try String(contentsOf: shell.profileDirectory().appendingPathComponent("profile.json"), encoding: .utf8)
        #expect(profile.contains(server.url))
        #expect(profile.contains("\"store\" : \"file\""))
        await server.discard()
    }

    @Test("without LATCHKEY_HOME: $XDG_CONFIG_HOME/latchkey, else ~/.config/latchkey")
    func defaultLocations() async throws {
        let server = try await ClientTestServer.start()
        try await server.createUser(email: "xdg@example.com", password: "xdg password 1")
        let base = TemporaryDirectory.make("latchkey-cli-xdg")
        defer { try? FileManager.default.removeItem(at: base) }
        let login = ["login", "--server", server.url, "--email", "xdg@example.com", "--password-stdin", "--store", "file"]

        let xdg = base.appendingPathComponent("config")
        let first = try CommandRunner.start(
            login, environment: ["XDG_CONFIG_HOME": xdg.path], input: "xdg password 1\n", removing: ClientSandbox.ambient)
        #expect(await first.wait(upTo: 60))
        #expect(await first.result().status == 0, "\(first.stderr)")
        #expect(FileManager.default.fileExists(atPath: xdg.appendingPathComponent("latchkey/profiles/default/profile.json").path))

        let home = base.appendingPathComponent("home")
        let second = try CommandRunner.start(login, environment: ["HOME": home.path], input: "xdg password 1\n", removing: ClientSandbox.ambient)
        #expect(await second.wait(upTo: 60))
        #expect(await second.result().status == 0, "\(second.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.appendingPathComponent(".config/latchkey/profiles/default/profile.json").path))

        let status = try CommandRunner.start(["status"], environment: ["HOME": home.path], removing: ClientSandbox.ambient)
        #expect(await status.wait(upTo: 60))
        #expect(await status.result().status == 0)
        await server.discard()
    }
}
