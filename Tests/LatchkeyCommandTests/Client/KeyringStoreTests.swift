import Foundation
import Testing

/// The Linux desktop keyring as the credential store, for real: a private D-Bus session with
/// an unlocked GNOME Keyring (see ``PrivateKeyring``). And `auto` without one.
@Suite("latchkey with the Linux desktop keyring (Secret Service)")
struct KeyringStoreTests {
    @Test(
        "--store keyring: the session lives in the keyring, a new process is signed in, logout removes it",
        .enabled(if: PrivateKeyring.toolsAvailable, PrivateKeyring.skipReason))
    func keyringRoundTrip() async throws {
        let keyring = try await PrivateKeyring.start()
        defer { keyring.stop() }
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox(environment: keyring.environment)
        defer { shell.remove() }

        let login = try await shell.signup(server, email: "kr@example.com", password: "keyring password", store: "keyring")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("Credentials are kept in the desktop keyring (Secret Service)."))

        let status = try await shell.run(["status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains("credentials:   desktop keyring (Secret Service)"))
        let token = try await shell.token()
        #expect(try await server.userStatus(accessToken: token) == 200)

        #expect(
            !FileManager.default.fileExists(atPath: shell.profileDirectory().appendingPathComponent("credentials").path),
            "no credential files when the keyring holds the session")
        #expect(try !shell.containsInPlainText(token))
        #expect(try !shell.containsInPlainText("keyring password"))
        for entry in try shell.entries() {
            #expect(entry.mode == (entry.isDirectory ? 0o700 : 0o600), "\(entry.path)")
        }

        // The same profile name under another LATCHKEY_HOME is another session.
        let elsewhere = ClientSandbox(environment: keyring.environment)
        defer { elsewhere.remove() }
        #expect(try await elsewhere.run(["status", "--store", "keyring"]).status == 1)

        let logout = try await shell.run(["logout"])
        #expect(logout.status == 0, "\(logout.stderr)")
        #expect(try await server.userStatus(accessToken: token) == 403)
        #expect(try await shell.run(["status"]).status == 1)
        #expect(try await shell.run(["status", "--store", "keyring"]).status == 1, "the keyring item is gone")
        await server.discard()
    }

    @Test("--store auto picks the keyring when one answers", .enabled(if: PrivateKeyring.toolsAvailable, PrivateKeyring.skipReason))
    func autoPicksKeyring() async throws {
        let keyring = try await PrivateKeyring.start()
        defer { keyring.stop() }
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox(environment: keyring.environment)
        defer { shell.remove() }
        let login = try await shell.signup(server, email: "auto@example.com", password: "keyring password", store: "auto")
        #expect(login.status == 0, "\(login.stderr)")
        #expect(login.stdout.contains("desktop keyring"))
        #expect(try await shell.run(["whoami"]).status == 0)
        await server.discard()
    }

    @Test("no keyring answering: auto uses the encrypted file store; --store keyring is a clear error (exit 4)")
    func noKeyring() async throws {
        let server = try await ClientTestServer.start()
        let shell = ClientSandbox(environment: ["DBUS_SESSION_BUS_ADDRESS": "unix:path=/nonexistent/latchkey-test-bus"])
        defer { shell.remove() }
        try await server.createUser(email: "nokr@example.com", password: "file password")

        let keyringOnly = try await shell.login(server, email: "nokr@example.com", password: "file password", store: "keyring")
        #expect(keyringOnly.status == 4)
        #expect(keyringOnly.stderr.contains("No desktop keyring answered."))
        #expect(keyringOnly.stderr.contains("--store file"))

        let auto = try await shell.login(server, email: "nokr@example.com", password: "file password", store: "auto")
        #expect(auto.status == 0, "\(auto.stderr)")
        #expect(auto.stdout.contains("encrypted file"))
        let status = try await shell.run(["status"])
        #expect(status.stdout.contains("credentials:   encrypted file"))
        await server.discard()
    }
}
