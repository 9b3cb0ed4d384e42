import Foundation
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A browser sheet that really browses: it follows every redirect from the authorize URL,
/// keeping cookies, through the server's `/authorize`, the provider's authorization page (which
/// consents at once) and the server's `/callback`, until it is sent to the callback URL.
final class FollowingWebAuthenticator: WebAuthenticator, @unchecked Sendable {
    private let session: URLSession
    /// The cookies set, by host (as browsers keep them: not by port).
    private let cookies = LockedValue<[String: [String: String]]>([:])

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        session = URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }

    func authenticate(url: URL, callbackURL: URL, ephemeral: Bool) async throws -> URL {
        var next = url
        for _ in 0..<10 {
            if next.scheme == callbackURL.scheme, next.host == callbackURL.host, next.path == callbackURL.path { return next }
            var request = URLRequest(url: next)
            let host = next.host ?? ""
            let jar = cookies.withLock { $0[host] ?? [:] }
            if !jar.isEmpty { request.setValue(jar.map { "\($0.key)=\($0.value)" }.joined(separator: "; "), forHTTPHeaderField: "Cookie") }
            let (_, response) = try await session.data(for: request)
            if let http = response as? HTTPURLResponse, let setCookie = http.value(forHTTPHeaderField: "Set-Cookie") {
                let pair = setCookie.split(separator: ";")[0].split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2 { cookies.withLock { $0[host, default: [:]][pair[0]] = pair[1] } }
            }
            guard let http = response as? HTTPURLResponse, (300..<400).contains(http.statusCode),
                let location = http.value(forHTTPHeaderField: "Location"), let target = URL(string: location, relativeTo: next)
            else { throw WebAuthenticationError.cannotStart(reason: "the browser stopped at \(next.host ?? "?") without reaching the callback") }
            next = target.absoluteURL
        }
        throw WebAuthenticationError.cannotStart(reason: "too many redirects")
    }

    /// Redirects are followed by ``authenticate(url:callbackURL:ephemeral:)``, one at a time.
    final class NoRedirects: NSObject, URLSessionTaskDelegate {
        func urlSession(
            _ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse, newRequest request: URLRequest,
            completionHandler: @escaping (URLRequest?) -> Void
        ) {
            completionHandler(nil)
        }
    }
}

/// `signInWithOAuth` and `identities.link(provider:)` through the real server's `/authorize`
/// and `/callback` and a local OpenID provider, with a sheet that follows the redirects as a
/// browser does.
@Suite("End to end: provider sign-in through /authorize and /callback")
struct ProviderBrowserFlowTests {
    static let callback = "com.example.app://auth"

    func withProvider(_ body: (TestServer, TestIdentityProvider) async throws -> Void) async throws {
        let provider = try await TestIdentityProvider.start()
        do {
            try await withTestServer(configure: { configuration in
                configuration.external.allowLoopbackProviders = true
                configuration.external.keycloak = ProviderSettings(
                    enabled: true, clientIDs: ["latchkey-test-app"], secret: "test-secret", url: provider.issuer)
                configuration.external.manualLinkingEnabled = true
                configuration.additionalRedirectURLs = [Self.callback]
            }) { server in
                try await body(server, provider)
            }
        } catch {
            try? await provider.shutdown()
            throw error
        }
        try await provider.shutdown()
    }

    @Test("signInWithOAuth: PKCE through the provider's page, the session saved with the identity")
    func signIn() async throws {
        try await withProvider { server, provider in
            provider.signInNext(subject: "ada-sub", email: "ada@example.com", name: "Ada Lovelace")
            let app = E2EApp(server: server) { $0.webAuthenticator = FollowingWebAuthenticator() }
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
            let app = E2EApp(server: server) { $0.webAuthenticator = FollowingWebAuthenticator() }
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
