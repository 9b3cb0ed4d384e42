import Foundation
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// `signInWithOAuth` and `identities.link(provider:)` through the real server's `/authorize`
/// and `/callback` and a local OpenID provider, with a sheet that follows the redirects as a
/// browser does (`TestBrowser`).
@Suite("End to end: provider sign-in through /authorize and /callback")
struct ProviderBrowserFlowTests {
    static let callback = "com.example.app://auth"

    func withProvider(_ body: (TestServer, TestIdentityProvider) async throws -> Void) async throws {
        try await TestIdentityProvider.with { provider in
            try await withTestServer(configure: { configuration in
                configuration.external.allowLoopbackProviders = true
                configuration.external.keycloak = ProviderSettings(
                    enabled: true, clientIDs: ["latchkey-test-app"], secret: "test-secret", url: provider.issuer)
                configuration.external.manualLinkingEnabled = true
                configuration.additionalRedirectURLs = [Self.callback]
            }) { server in
                try await body(server, provider)
            }
        }
    }

    @Test("signInWithOAuth: PKCE through the provider's page, the session saved with the identity")
    func signIn() async throws {
        try await withProvider { server, provider in
            provider.signInNext(subject: "ada-sub", email: "ada@example.com", name: "Ada Lovelace")
            let app = E2EApp(server: server) { $0.webAuthenticator = TestBrowser() }
            let manager = app.launch()
            await manager.restore()
            let result = try await manager.account.signInWithOAuth(provider: .keycloak, redirectTo: URL(string: Self.callback)!)
            guard case .signedIn(let session) = result else {
                Issue.record("expected a session, got \(result)")
                return
            }
            #expect(session.user.email == "ada@example.com")
            #expect(session.user.identities.map(\.provider) == ["keycloak"])
            #expect(try await app.store.load(key: manager.pkceVerifierKey) == nil, "the verifier is spent")
            // Relaunched, still signed in.
            let relaunched = app.launch()
            await relaunched.restore()
            #expect(await relaunched.state.session?.user.id == session.user.id)
        }
    }

    @Test("identities.link(provider:): a password account gains the provider's identity in the browser")
    func link() async throws {
        try await withProvider { server, provider in
            let app = E2EApp(server: server) { $0.webAuthenticator = TestBrowser() }
            let manager = app.launch()
            await manager.restore()
            _ = try await manager.account.signUp(email: "grace@example.com", password: "correct horse battery")
            provider.signInNext(subject: "grace-at-work", email: "grace.work@example.com")
            let linked = try await manager.identities.link(provider: .keycloak, redirectTo: URL(string: Self.callback)!)
            guard case .signedIn = linked else {
                Issue.record("expected the link to finish, got \(linked)")
                return
            }
            #expect(try await manager.identities.list().map(\.provider).sorted() == ["email", "keycloak"])
        }
    }
}
