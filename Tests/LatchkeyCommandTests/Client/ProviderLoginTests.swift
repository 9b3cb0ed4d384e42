import Foundation
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

/// `latchkey login --provider NAME --no-browser`: the command prints the server's authorize URL
/// and listens on a loopback port; a browser (`TestBrowser`) signs in at a local OpenID
/// provider and lands on the command's listener, which trades the code and saves the session.
@Suite("latchkey login --provider")
struct ProviderLoginTests {
    @Test("the browser flow through /authorize, the provider and the loopback listener; status lists the identity")
    func loginWithProvider() async throws {
        let provider = try await TestIdentityProvider.start()
        defer { Task { try? await provider.shutdown() } }
        let server = try await ClientTestServer.start { configuration in
            configuration.external.allowLoopbackProviders = true
            configuration.external.keycloak = ProviderSettings(enabled: true, clientIDs: ["cli"], secret: "cli-secret", url: provider.issuer)
        }
        let shell = ClientSandbox()
        defer { shell.remove() }
        provider.signInNext(subject: "terminal-person", email: "terminal@example.com")
        let running = try shell.start(["login", "--provider", "keycloak", "--no-browser", "--server", server.url, "--store", "file"])
        // The URL the command prints, once it has.
        func printedURL() -> URL? {
            (running.stdout + running.stderr).split(whereSeparator: \.isWhitespace).lazy.compactMap { URL(string: String($0)) }
                .first { $0.absoluteString.hasPrefix(server.url) && $0.path.hasSuffix("/authorize") }
        }
        #expect(await eventually(timeout: 120) { printedURL() != nil }, "the command printed the sign-in URL")
        let url = try #require(printedURL())
        #expect(url.query?.contains("code_challenge=") == true && url.query?.contains("redirect_to=http") == true)
        let landed = try await TestBrowser().follow(url)
        #expect(landed.host == "127.0.0.1" && landed.path.hasSuffix("/callback"), "\(landed)")
        #expect(await running.wait(upTo: 120))
        let result = await running.result()
        #expect(result.status == 0, "\(result.stderr)")
        let status = try await shell.run(["status"])
        #expect(status.stdout.contains("terminal@example.com"), "\(status.stdout)")
        #expect(status.stdout.contains("keycloak"), "\(status.stdout)")
        await server.discard()
    }
}
