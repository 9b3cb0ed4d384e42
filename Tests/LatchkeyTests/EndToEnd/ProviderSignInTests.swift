import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// A browser sheet for tests: answers with what `respond` makes of the URL it was asked to open.
struct ScriptedWebAuthenticator: WebAuthenticator {
    let respond: @Sendable (_ url: URL, _ callbackURL: URL) async throws -> URL

    func authenticate(url: URL, callbackURL: URL, ephemeral: Bool) async throws -> URL {
        try await respond(url, callbackURL)
    }
}

/// Browser sign-in against the real server, with a scripted browser sheet. Until the server
/// serves `/authorize`, the sheet stands in for the provider with the server's own PKCE flow:
/// it starts an email sign-in with the challenge the manager put in the authorize URL and
/// follows the mailed link, which comes back with `?code=` exactly as a provider sign-in does.
@Suite("End to end: provider sign-in in the browser, session(from:)")
struct ProviderSignInTests {
    static let callback = "com.example.app://auth"

    func withServer(_ body: (TestServer) async throws -> Void) async throws {
        try await withTestServer(autoconfirm: false, configure: { $0.additionalRedirectURLs = [Self.callback] }) { server in
            try await body(server)
        }
    }

    /// The sheet: the redirect a PKCE sign-in of `email` ends at, for the challenge in `url`.
    static func codeRedirect(_ server: TestServer, email: String, for url: URL) async throws -> URL {
        let items = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems ?? []
        let challenge = try #require(items.first { $0.name == "code_challenge" }?.value)
        #expect(items.first { $0.name == "code_challenge_method" }?.value == "s256")
        let redirect = try #require(items.first { $0.name == "redirect_to" }?.value)
        try await server.backend().sendSignInEmail(email: email, createUser: true, redirectTo: redirect, codeChallenge: challenge)
        return try await server.server.followLink(to: email, type: "signup")
    }

    @Test("signInWithOAuth opens the authorize URL and signs in with the ?code= it comes back with")
    func oauthCode() async throws {
        try await withServer { server in
            let email = uniqueEmail()
            let app = E2EApp(server: server) {
                $0.webAuthenticator = ScriptedWebAuthenticator { url, callbackURL in
                    #expect(url.path.hasSuffix("/authorize"))
                    #expect(url.query?.contains("provider=google") == true)
                    #expect(callbackURL.absoluteString == Self.callback)
                    return try await Self.codeRedirect(server, email: email, for: url)
                }
            }
            let manager = app.launch()
            await manager.restore()
            let result = try await manager.account.signInWithOAuth(provider: .google, redirectTo: URL(string: Self.callback)!, scopes: "email")
            guard case .signedIn(let session) = result else {
                Issue.record("expected a session, got \(result)")
                return
            }
            #expect(session.user.email == email)
            #expect(await manager.state == .signedIn(session))
            #expect(try await app.store.load(key: manager.pkceVerifierKey) == nil, "the verifier is spent")
        }
    }

    @Test("the verifier survives the app being killed: a new manager trades the code")
    func verifierSurvivesRelaunch() async throws {
        try await withServer { server in
            let app = E2EApp(server: server)
            let first = app.launch()
            await first.restore()
            let url = try await first.account.signInURL(provider: .github, redirectTo: URL(string: Self.callback)!)
            let redirect = try await Self.codeRedirect(server, email: "relaunched@example.com", for: url)
            let relaunched = app.launch()
            await relaunched.restore()
            let session = try await relaunched.account.session(from: redirect)
            #expect(session.user.email == "relaunched@example.com")
            do {
                try await relaunched.account.session(from: redirect)
                Issue.record("a code is traded once")
            } catch let failure as AuthFailure {
                #expect(failure.category == .invalidInput)
            }
        }
    }

    @Test("a closed sheet is .cancelled, not a failure: nothing changes and the verifier is forgotten")
    func cancelled() async throws {
        try await withServer { server in
            let app = E2EApp(server: server) {
                $0.webAuthenticator = ScriptedWebAuthenticator { _, _ in throw WebAuthenticationError.cancelled }
            }
            let manager = app.launch()
            await manager.restore()
            let result = try await manager.account.signInWithOAuth(provider: .google, redirectTo: URL(string: Self.callback)!)
            #expect(result == .cancelled)
            #expect(await manager.state == .signedOut(.noSession))
            #expect(try await app.store.load(key: manager.pkceVerifierKey) == nil)
        }
    }

    @Test("an error redirect is a typed failure with the server's code and words; no sheet configured is its own failure")
    func errorRedirect() async throws {
        try await withServer { server in
            let app = E2EApp(server: server) {
                $0.webAuthenticator = ScriptedWebAuthenticator { _, callbackURL in
                    URL(
                        string: callbackURL.absoluteString
                            + "?error=access_denied&error_code=provider_email_needs_verification&error_description=Verify+your+email")!
                }
            }
            let manager = app.launch()
            await manager.restore()
            do {
                _ = try await manager.account.signInWithOAuth(provider: .google, redirectTo: URL(string: Self.callback)!)
                Issue.record("an error redirect must throw")
            } catch let failure as AuthFailure {
                #expect(failure.code == "provider_email_needs_verification")
                #expect(failure.detail == "Verify your email")
                #expect(failure.category == .invalidInput)
            }
            #expect(await manager.state == .signedOut(.noSession))

            let bare = E2EApp(server: server).launch()
            await bare.restore()
            do {
                _ = try await bare.account.signInWithOAuth(provider: .google, redirectTo: URL(string: Self.callback)!)
                Issue.record("no browser sheet must throw")
            } catch let failure as AuthFailure {
                #expect(failure.code == "web_authentication_unavailable")
            }
        }
    }

    @Test("an implicit redirect's tokens are stored like a sign-in, with the user fetched with them")
    func implicitFragment() async throws {
        try await withTestServer { server in
            let (_, issued) = try await E2EApp(server: server).signUp()
            let app = E2EApp(server: server)
            let manager = app.launch()
            await manager.restore()
            let redirect = URL(
                string: Self.callback
                    + "#access_token=\(issued.accessToken)&refresh_token=\(issued.refreshToken)&expires_in=3600&token_type=bearer&provider_token=PT"
            )!
            let session = try await manager.account.session(from: redirect)
            #expect(session.user.id == issued.user.id)
            #expect(session.user.email == issued.user.email)
            #expect(await manager.state == .signedIn(session))
            #expect(try await app.storedRefreshToken() == issued.refreshToken)
        }
    }
}
