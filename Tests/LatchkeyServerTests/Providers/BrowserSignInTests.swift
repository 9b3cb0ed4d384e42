import AsyncHTTPClient
import Crypto
import Foundation
import LatchkeyTesting
import LatchkeyWire
import NIOCore
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// Sign-in in a browser (`GET /authorize` → provider → `/callback` → the app) against a local
/// OpenID provider whose authorization page consents at once, followed by a cookie-keeping
/// client standing in for the browser; and every forged, replayed or misdirected callback
/// refused with a redirect, never a 5xx.
@Suite("Browser sign-in at providers")
struct BrowserSignInTests {
    static let clientID = "latchkey-test-app"
    static let app = "http://localhost:3000/welcome"

    /// A browser: follows nothing by itself, keeps the server's cookies.
    final class Browser: @unchecked Sendable {
        let server: TestServer
        var cookies: [String: String] = [:]

        init(_ server: TestServer) { self.server = server }

        func send(_ url: String, method: HTTPMethod = .GET, form: [String: String]? = nil, bearer: String? = nil) async throws -> TestResponse {
            var request = HTTPClientRequest(url: url)
            request.method = method
            let toServer = url.hasPrefix(server.server.baseURL.absoluteString)
            if toServer, !cookies.isEmpty {
                request.headers.add(name: "Cookie", value: cookies.map { "\($0.key)=\($0.value)" }.joined(separator: "; "))
            }
            if let bearer { request.headers.add(name: "Authorization", value: "Bearer \(bearer)") }
            if let form {
                var components = URLComponents()
                components.queryItems = form.map { URLQueryItem(name: $0.key, value: $0.value) }
                let body = (components.percentEncodedQuery ?? "").replacingOccurrences(of: "+", with: "%2B")
                request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
                request.body = .bytes(ByteBuffer(string: body))
            }
            let response = try await server.client.execute(request, timeout: .seconds(60))
            let body = try await response.body.collect(upTo: 1 << 20)
            if toServer {
                for header in response.headers["Set-Cookie"] {
                    let pair = header.split(separator: ";")[0].split(separator: "=", maxSplits: 1).map(String.init)
                    if pair.count == 2 { cookies[pair[0]] = pair[1] }
                }
            }
            return TestResponse(status: Int(response.status.code), headers: response.headers, body: Data(body.readableBytesView))
        }

        /// `GET url`, then every redirect that stays on a server (the provider's or ours), as a
        /// browser does; answers the last response (a redirect to the app, or a page).
        func follow(_ url: String, bearer: String? = nil) async throws -> TestResponse {
            var response = try await send(url, bearer: bearer)
            var hops = 0
            while response.status == 302 || response.status == 303, let next = response.headers.first(name: "Location"),
                next.hasPrefix("http://127.0.0.1"), hops < 10
            {
                response = try await send(next)
                hops += 1
            }
            return response
        }
    }

    static func with(
        configure: @escaping (inout ServerConfiguration, _ providerIssuer: String) -> Void = { _, _ in },
        _ body: (TestServer, TestIdentityProvider, Browser) async throws -> Void
    ) async throws {
        try await TestIdentityProvider.with { provider in
            try await TestServer.with(clock: ManualServerClock(Date())) { configuration in
                configuration.external.allowLoopbackProviders = true
                configuration.external.keycloak = ProviderSettings(
                    enabled: true, clientIDs: [clientID], secret: "keycloak-secret", url: provider.issuer)
                configuration.external.issuerOverrides = ["apple": provider.issuer]
                configuration.external.manualLinkingEnabled = true
                configuration.additionalRedirectURLs = ["http://localhost:3000"]
                configuration.autoconfirm = true
                configure(&configuration, provider.issuer)
            } _: { server in
                try await body(server, provider, Browser(server))
            }
        }
    }

    static func query(_ location: String?) -> [String: String] {
        var values: [String: String] = [:]
        for item in URLComponents(string: location ?? "")?.queryItems ?? [] { values[item.name] = item.value ?? "" }
        return values
    }

    static func fragment(_ location: String?) -> [String: String] {
        var components = URLComponents()
        components.percentEncodedQuery = location.flatMap { $0.split(separator: "#", maxSplits: 1).dropFirst().first.map(String.init) } ?? ""
        var values: [String: String] = [:]
        for item in components.queryItems ?? [] { values[item.name] = item.value ?? "" }
        return values
    }

    static func authorize(_ server: TestServer, provider: String = "keycloak", redirectTo: String = app, challenge: String? = nil) -> String {
        var components = URLComponents(string: server.server.baseURL.absoluteString + "/authorize")!
        components.queryItems = [URLQueryItem(name: "provider", value: provider), URLQueryItem(name: "redirect_to", value: redirectTo)]
        if let challenge {
            components.queryItems! += [
                URLQueryItem(name: "code_challenge", value: challenge), URLQueryItem(name: "code_challenge_method", value: "s256"),
            ]
        }
        return components.string!
    }

    @Test("PKCE: the app gets ?code=, trades it with its verifier for a session with the identity; the provider got PKCE and a nonce")
    func pkce() async throws {
        try await Self.with { server, provider, browser in
            provider.signInNext(subject: "ada-sub", email: "Ada@Example.com", name: "Ada Lovelace")
            let verifier = OpaqueTokens.random()
            let landed = try await browser.follow(Self.authorize(server, challenge: PKCEChallenge.s256(verifier)))
            #expect(landed.status == 302)
            let location = try #require(landed.headers.first(name: "Location"))
            #expect(location.hasPrefix(Self.app + "?code="), "\(location)")
            let request = try #require(provider.authorizationRequests.last)
            #expect(request["code_challenge_method"] == "S256" && request["nonce"]?.count == 64)
            #expect(request["redirect_uri"] == server.server.baseURL.absoluteString + "/callback")

            let code = try #require(Self.query(location)["code"])
            let wrong = try await server.request(.POST, "/token?grant_type=pkce", json: ["auth_code": code, "code_verifier": OpaqueTokens.random()])
            #expect(wrong.status == 400)
            // A code is spent by its first use, right or wrong: the app starts again.
            let again = try await browser.follow(Self.authorize(server, challenge: PKCEChallenge.s256(verifier)))
            let code2 = try #require(Self.query(again.headers.first(name: "Location"))["code"])
            let exchanged = try await server.request(.POST, "/token?grant_type=pkce", json: ["auth_code": code2, "code_verifier": verifier])
            #expect(exchanged.status == 200, "\(exchanged.text)")
            let user = try #require(exchanged["user"] as? [String: Any])
            #expect(user["email"] as? String == "ada@example.com")
            let identities = try #require(user["identities"] as? [[String: Any]])
            #expect(identities.map { $0["provider"] as? String } == ["keycloak"])
            #expect((user["user_metadata"] as? [String: Any])?["name"] as? String == "Ada Lovelace")
        }
    }

    @Test("implicit: the session and the provider's token land in the fragment, never the query")
    func implicit() async throws {
        try await Self.with { server, provider, browser in
            provider.signInNext(subject: "grace-sub", email: "grace@example.com")
            let landed = try await browser.follow(Self.authorize(server))
            let location = try #require(landed.headers.first(name: "Location"))
            #expect(location.hasPrefix(Self.app + "#"), "\(location)")
            let fragment = Self.fragment(location)
            #expect(fragment["token_type"] == "bearer" && fragment["provider_token"] != nil && fragment["refresh_token"] != nil)
            let me = try await server.request(.GET, "/user", bearer: fragment["access_token"] ?? "")
            #expect(me["email"] as? String == "grace@example.com")
            #expect(Self.query(location).isEmpty)
        }
    }

    @Test("Sign in with Apple: form_post callback, the name kept once, the client secret an ES256 JWT Apple would accept")
    func apple() async throws {
        let key = P256.Signing.PrivateKey()
        let keyFile = FileManager.default.temporaryDirectory.appendingPathComponent("apple-\(UUID().uuidString).p8")
        try key.pemRepresentation.write(to: keyFile, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: keyFile) }
        try await Self.with(configure: { configuration, _ in
            configuration.external.apple = ProviderSettings(enabled: true, clientIDs: ["com.example.services"])
            configuration.external.appleTeamID = "TEAM123456"
            configuration.external.appleKeyID = "KEY1234567"
            configuration.external.applePrivateKeyFile = keyFile.path
        }) { server, provider, browser in
            provider.signInNext(subject: "001234.apple", email: "relay@privaterelay.appleid.com", name: "Ada Lovelace")
            let page = try await browser.follow(Self.authorize(server, provider: "apple"))
            #expect(page.status == 200, "Apple answers with a page that posts the code back")
            let request = try #require(provider.authorizationRequests.last)
            #expect(request["response_mode"] == "form_post" && request["scope"] == "name email" && request["code_challenge"] == nil)
            // The page's form, posted as the browser would.
            let action = try #require(page.text.firstMatch(of: /action="([^"]+)"/)?.1).replacingOccurrences(of: "&amp;", with: "&")
            var fields: [String: String] = [:]
            for match in page.text.matches(of: /name="([^"]+)" value="([^"]*)"/) {
                fields[String(match.1)] = String(match.2).replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&amp;", with: "&")
            }
            let landed = try await browser.send(String(action), method: .POST, form: fields)
            let location = try #require(landed.headers.first(name: "Location"))
            let access = try #require(Self.fragment(location)["access_token"], "\(location)")
            let me = try await server.request(.GET, "/user", bearer: access)
            #expect((me["user_metadata"] as? [String: Any])?["full_name"] as? String == "Ada Lovelace")
            #expect((me["identities"] as? [[String: Any]])?.first?["provider"] as? String == "apple")

            // The client secret, checked without Latchkey's code: header, claims, signature.
            let secret = try #require(provider.receivedClientSecrets.last)
            let parts = secret.split(separator: ".").map(String.init)
            #expect(parts.count == 3)
            let header = try #require(try JSONSerialization.jsonObject(with: Base64URL.decode(parts[0]) ?? Data()) as? [String: Any])
            let claims = try #require(try JSONSerialization.jsonObject(with: Base64URL.decode(parts[1]) ?? Data()) as? [String: Any])
            #expect(header["alg"] as? String == "ES256" && header["kid"] as? String == "KEY1234567")
            #expect(claims["iss"] as? String == "TEAM123456" && claims["sub"] as? String == "com.example.services")
            #expect(claims["aud"] as? String == "https://appleid.apple.com")
            let iat = try #require(claims["iat"] as? Int)
            let exp = try #require(claims["exp"] as? Int)
            #expect(exp > iat && exp - iat <= 15_777_000)
            let signature = try P256.Signing.ECDSASignature(rawRepresentation: try #require(Base64URL.decode(parts[2])))
            #expect(key.publicKey.isValidSignature(signature, for: Data((parts[0] + "." + parts[1]).utf8)))
        }
    }

    @Test("a forged, malformed or missing state, or one spent already, is refused at the site URL")
    func forgedAndReplayedState() async throws {
        try await Self.with { server, provider, browser in
            let base = server.server.baseURL.absoluteString
            for (query, code) in [
                ("state=\(UUID().uuidString)&code=x", "bad_oauth_state"), ("state=not-a-uuid&code=x", "bad_oauth_state"),
                ("code=x", "bad_oauth_callback"),
            ] {
                let response = try await browser.send(base + "/callback?" + query)
                #expect(response.status == 302)
                let location = response.headers.first(name: "Location") ?? ""
                #expect(Self.query(location)["error_code"] == code, "\(location)")
                #expect(Self.fragment(location)["access_token"] == nil)
            }
            // One real sign-in; its callback URL replayed.
            let toProvider = try await browser.send(Self.authorize(server))
            let callback = try await browser.send(try #require(toProvider.headers.first(name: "Location")))
            let callbackURL = try #require(callback.headers.first(name: "Location"))
            let first = try await browser.send(callbackURL)
            #expect(Self.fragment(first.headers.first(name: "Location"))["access_token"] != nil)
            let replayed = try await browser.send(callbackURL)
            #expect(Self.query(replayed.headers.first(name: "Location"))["error_code"] == "bad_oauth_state")
        }
    }

    @Test("a callback in a browser other than the one that started the flow signs no one in")
    func otherBrowser() async throws {
        try await Self.with { server, provider, attacker in
            // The attacker signs in at the provider and keeps the callback URL...
            let toProvider = try await attacker.send(Self.authorize(server))
            let callback = try await attacker.send(try #require(toProvider.headers.first(name: "Location")))
            let callbackURL = try #require(callback.headers.first(name: "Location"))
            // ...and gets the victim's browser to open it.
            let victim = Browser(server)
            let landed = try await victim.send(callbackURL)
            let location = landed.headers.first(name: "Location") ?? ""
            #expect(Self.query(location)["error_code"] == "bad_oauth_state")
            #expect(Self.fragment(location)["access_token"] == nil)
            // A cookie of the victim's own (from another flow) does not do either.
            _ = try await victim.send(Self.authorize(server))
            let toProvider2 = try await attacker.send(Self.authorize(server))
            let callback2 = try await attacker.send(try #require(toProvider2.headers.first(name: "Location")))
            let landed2 = try await victim.send(try #require(callback2.headers.first(name: "Location")))
            #expect(Self.query(landed2.headers.first(name: "Location"))["error_code"] == "bad_oauth_state")
        }
    }

    @Test("redirect_to outside the allow list lands on the site URL; a provider's refusal reaches the app as an error")
    func redirectsAndRefusals() async throws {
        try await Self.with(configure: { configuration, _ in configuration.siteURL = "http://localhost:3000" }) { server, provider, browser in
            let landed = try await browser.follow(Self.authorize(server, redirectTo: "https://evil.example/steal"))
            let location = try #require(landed.headers.first(name: "Location"))
            #expect(location.hasPrefix("http://localhost:3000#"), "\(location)")
            #expect(Self.fragment(location)["access_token"] != nil)

            let toProvider = try await browser.send(Self.authorize(server))
            let state = try #require(Self.query(toProvider.headers.first(name: "Location"))["state"])
            let refused = try await browser.send(
                server.server.baseURL.absoluteString + "/callback?state=\(state)&error=access_denied&error_description=The+user+said+no")
            let refusal = try #require(refused.headers.first(name: "Location"))
            #expect(refusal.hasPrefix(Self.app + "?"))
            #expect(Self.query(refusal)["error"] == "access_denied" && Self.fragment(refusal)["error"] == "access_denied")
        }
    }

    @Test("/authorize refuses unknown, disabled and half-configured providers and half a PKCE pair with 400s")
    func authorizeRefusals() async throws {
        try await Self.with { server, _, browser in
            for provider in ["nope", "google", "github", "custom:acme", "apple"] {
                let response = try await browser.send(Self.authorize(server, provider: provider))
                #expect(response.status == 400, "\(provider): \(response.text)")
                #expect(response.errorCode == "validation_failed")
            }
            let half = try await browser.send(
                server.server.baseURL.absoluteString + "/authorize?provider=keycloak&code_challenge=" + String(repeating: "a", count: 43))
            #expect(half.status == 400)
        }
    }

    @Test("linking: a signed-in user adds an identity through /user/identities/authorize; someone else's is refused")
    func linking() async throws {
        try await Self.with { server, provider, browser in
            let ada = try await server.signUp("ada@example.com")
            provider.signInNext(subject: "ada-at-keycloak", email: "ada.work@example.com")
            let start = try await server.request(
                .GET, "/user/identities/authorize?provider=keycloak&skip_http_redirect=true&redirect_to=" + Self.app, bearer: ada.accessToken)
            #expect(start.status == 200, "\(start.text)")
            let url = try #require(start["url"] as? String)
            // The URL went to an app, not to this browser: the browser is asked first.
            let asked = try await browser.follow(url)
            #expect(asked.status == 200 && asked.text.contains("ada@example.com"), "\(asked.text)")
            let landed = try await browser.send(
                server.server.baseURL.absoluteString + "/callback/link", method: .POST, form: try Self.linkForm(asked, decision: "link"))
            let location = try #require(landed.headers.first(name: "Location"))
            #expect(Self.fragment(location)["access_token"] != nil, "\(location)")
            let me = try await server.request(.GET, "/user", bearer: ada.accessToken)
            #expect((me["identities"] as? [[String: Any]])?.compactMap { $0["provider"] as? String }.sorted() == ["email", "keycloak"])

            // Grace tries to link the identity that is Ada's.
            let grace = try await server.signUp("grace@example.com")
            let graceStart = try await server.request(
                .GET, "/user/identities/authorize?provider=keycloak&skip_http_redirect=true&redirect_to=" + Self.app, bearer: grace.accessToken)
            let graceAsked = try await browser.follow(try #require(graceStart["url"] as? String))
            let refused = try await browser.send(
                server.server.baseURL.absoluteString + "/callback/link", method: .POST, form: try Self.linkForm(graceAsked, decision: "link"))
            #expect(Self.query(refused.headers.first(name: "Location"))["error_code"] == "identity_already_exists")

            let anonymous = try await server.request(.GET, "/user/identities/authorize?provider=keycloak")
            #expect(anonymous.status == 401)
        }
    }

    /// The confirmation page's form: its hidden fields and the button chosen.
    static func linkForm(_ page: TestResponse, decision: String) throws -> [String: String] {
        var form = ["decision": decision]
        for name in ["ticket", "sealed"] {
            let marker = "name=\"\(name)\" value=\""
            let start = try #require(page.text.range(of: marker), "no \(name) in \(page.text)")
            let end = try #require(page.text[start.upperBound...].firstIndex(of: "\""))
            form[name] = String(page.text[start.upperBound..<end]).replacingOccurrences(of: "&#x2F;", with: "/")
                .replacingOccurrences(of: "&#x3D;", with: "=").replacingOccurrences(of: "&#43;", with: "+")
        }
        return form
    }

    @Test(
        "a link URL handed to an app and opened by someone else links nothing: the browser is asked, and declining, replaying or another browser changes nothing"
    )
    func linkURLOpenedBySomeoneElse() async throws {
        try await Self.with { server, provider, _ in
            let base = server.server.baseURL.absoluteString
            // Mallory, signed in, asks for a link URL for her own account and sends it to Ada.
            let mallory = try await server.signUp("mallory@example.com")
            let start = try await server.request(
                .GET, "/user/identities/authorize?provider=keycloak&skip_http_redirect=true&redirect_to=" + Self.app, bearer: mallory.accessToken)
            let url = try #require(start["url"] as? String)
            // Ada opens it in her browser and signs in at her provider.
            provider.signInNext(subject: "ada-at-keycloak", email: "ada@example.com")
            let asked = try await Browser(server).follow(url)
            #expect(asked.status == 200, "the callback linked without asking: \(asked.headers.first(name: "Location") ?? "")")
            #expect(asked.text.contains("mallory@example.com") && asked.text.contains("Keycloak"), "the page names the account it would join")
            #expect(!asked.text.contains("access_token") && !asked.text.contains("refresh_token"))
            func malloryIdentities() async throws -> [String] {
                let me = try await server.request(.GET, "/user", bearer: mallory.accessToken)
                return ((me["identities"] as? [[String: Any]]) ?? []).compactMap { $0["provider"] as? String }.sorted()
            }
            #expect(try await malloryIdentities() == ["email"], "nothing is linked before the browser answers")

            /// Mallory's link URL, opened in `browser` by Ada: the confirmation page.
            func askAda(in browser: Browser) async throws -> TestResponse {
                let start = try await server.request(
                    .GET, "/user/identities/authorize?provider=keycloak&skip_http_redirect=true&redirect_to=" + Self.app, bearer: mallory.accessToken)
                provider.signInNext(subject: "ada-at-keycloak", email: "ada@example.com")
                return try await browser.follow(try #require(start["url"] as? String))
            }
            func post(_ form: [String: String], from browser: Browser) async throws -> [String: String] {
                Self.query(try await browser.send(base + "/callback/link", method: .POST, form: form).headers.first(name: "Location"))
            }

            // Another browser (Mallory's) cannot answer for Ada's.
            #expect(try await post(try Self.linkForm(asked, decision: "link"), from: Browser(server))["error_code"] == "bad_oauth_state")
            // A page altered, or the sealed answer of another confirmation, links nothing.
            let adaBrowser = Browser(server)
            var altered = try Self.linkForm(try await askAda(in: adaBrowser), decision: "link")
            altered["sealed"] = String(altered["sealed", default: ""].dropLast(6)) + "AAAAAA"
            #expect(try await post(altered, from: adaBrowser)["error_code"] == "bad_oauth_state")
            let first = try Self.linkForm(try await askAda(in: adaBrowser), decision: "link")
            var swapped = try Self.linkForm(try await askAda(in: adaBrowser), decision: "link")
            swapped["sealed"] = first["sealed"]
            #expect(try await post(swapped, from: adaBrowser)["error_code"] == "bad_oauth_state")
            #expect(try await malloryIdentities() == ["email"])

            // Ada sees an account that is not hers and declines: nothing is linked, and the
            // confirmation is spent.
            let page = try await askAda(in: adaBrowser)
            let declined = try await adaBrowser.send(base + "/callback/link", method: .POST, form: try Self.linkForm(page, decision: "cancel"))
            let location = try #require(declined.headers.first(name: "Location"))
            #expect(location.hasPrefix(Self.app) && Self.query(location)["error"] == "access_denied", "\(location)")
            #expect(try await post(try Self.linkForm(page, decision: "link"), from: adaBrowser)["error_code"] == "bad_oauth_state", "spent")
            #expect(try await malloryIdentities() == ["email"], "Ada's identity never joined Mallory's account")

            // Ada's own sign-in with the provider makes her own account, not Mallory's.
            provider.signInNext(subject: "ada-at-keycloak", email: "ada@example.com")
            let own = try await adaBrowser.follow(Self.authorize(server, provider: "keycloak"))
            let session = Self.fragment(own.headers.first(name: "Location"))
            let adaUser = try await server.request(.GET, "/user", bearer: session["access_token"] ?? "")
            #expect(adaUser["email"] as? String == "ada@example.com", "\(adaUser.text)")
        }
    }

    @Test("GitHub: the person from its API, the primary address and whether GitHub verified it")
    func gitHub() async throws {
        // GitHub Enterprise at the provider's URL (on loopback: the development switch allows it).
        try await Self.with(configure: { configuration, issuer in
            configuration.external.github = ProviderSettings(enabled: true, clientIDs: ["gh-client"], secret: "gh-secret", url: issuer)
        }) { server, provider, browser in
            provider.signInNext(subject: "4242", email: "Octo@Example.com", name: "Mona Octocat")
            let landed = try await browser.follow(Self.authorize(server, provider: "github"))
            let location = try #require(landed.headers.first(name: "Location"))
            let request = try #require(provider.authorizationRequests.last)
            #expect(request["scope"] == "user:email" && request["nonce"] == nil)
            #expect(Self.fragment(location)["access_token"] != nil, "\(location)")
            let me = try await server.request(.GET, "/user", bearer: Self.fragment(location)["access_token"] ?? "")
            #expect(me["email"] as? String == "octo@example.com")
            let identity = try #require((me["identities"] as? [[String: Any]])?.first)
            #expect(identity["provider"] as? String == "github" && identity["id"] as? String == "4242")
            let data = try #require(identity["identity_data"] as? [String: Any])
            #expect(data["user_name"] as? String == "4242" && data["full_name"] as? String == "Mona Octocat")
            #expect(data["email_verified"] as? Bool == true)
            #expect(provider.receivedClientSecrets.last == "gh-secret")
        }
    }

    @Test("a standalone server's home page, where flows land without a site URL, says why a sign-in failed (escaped)")
    func homePageSaysWhy() async throws {
        try await Self.with { server, _, browser in
            let base = server.server.baseURL.absoluteString
            let failed = try await browser.send(
                base + "/?error=invalid_request&error_code=bad_oauth_state&error_description=OAuth+state+%3Cb%3Enot%3C/b%3E+found")
            #expect(failed.status == 200)
            #expect(failed.text.contains("Signing in did not finish") && failed.text.contains("&lt;b&gt;not&lt;/b&gt;"))
            let arrived = try await browser.send(base + "/?code=abc")
            #expect(arrived.text.contains("return to the app to finish") && !arrived.text.contains("did not finish"))
            #expect(try await browser.send(base + "/").text.contains("it has been handled"))
        }
    }
}
