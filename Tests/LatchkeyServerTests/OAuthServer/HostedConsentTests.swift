import Foundation
import LatchkeyTesting
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// The server's own consent page, for apps without one: what it shows, and every way past it
/// that must stay shut.
@Suite("OAuth server: the hosted consent page")
struct HostedConsentTests {
    static func with(
        configure: @escaping (inout ServerConfiguration) -> Void = { _ in }, _ body: (OAuthFlowHarness) async throws -> Void
    )
        async throws
    {
        try await OAuthFlowHarness.with(configure: { configuration in
            configuration.oauthServer.authorizationPath = ""
            configure(&configuration)
        }) { harness in try await body(harness) }
    }

    /// The hosted page's path and query of a 302 from /oauth/authorize.
    static func page(_ harness: OAuthFlowHarness, _ response: TestResponse) throws -> (path: String, id: String) {
        let location = try #require(response.headers.first(name: "Location"), "\(response.status) \(response.text)")
        let base = harness.server.server.baseURL.absoluteString.trimmingTrailingSlash()
        #expect(location.hasPrefix(base + "/welcome/consent?authorization_id="), "\(location)")
        let id = try #require(OAuthFlowHarness.query(location)["authorization_id"])
        return (String(location.dropFirst(base.count)), id)
    }

    /// The hidden CSRF field of a rendered page.
    static func csrf(_ page: TestResponse) throws -> String {
        let text = page.text
        let marker = #"name="csrf" value=""#
        let start = try #require(text.range(of: marker)).upperBound
        return String(text[start...].prefix { $0 != "\"" })
    }

    @Test("the page shows the app and the scopes in words; allowing with the password sends the browser back with a code")
    func allow() async throws {
        try await Self.with { harness in
            let server = harness.server
            let created = try await server.request(
                .POST, "/admin/oauth/clients",
                json: [
                    "redirect_uris": [OAuthFlowHarness.redirect], "client_name": "Second <App>", "logo_uri": "http://plain.example/logo.png",
                    "client_uri": "https://second.example.com",
                ], bearer: server.server.serviceRoleKey)
            let client = OAuthFlowHarness.Client(id: try #require(created["client_id"] as? String), secret: created["client_secret"] as? String)
            let user = try await server.signUp("hosted@example.com")
            let pkce = OAuthFlowHarness.PKCE()
            let (path, id) = try Self.page(harness, try await harness.authorize(client, pkce: pkce, ["scope": "openid email"]))

            let page = try await server.request(.GET, path)
            #expect(page.status == 200 && page.headers.first(name: "Content-Type") == "text/html; charset=utf-8")
            #expect(page.text.contains("Second &lt;App&gt;") && !page.text.contains("Second <App>"), "the name is escaped")
            #expect(page.text.contains("your email address") && page.text.contains("https://second.example.com"))
            #expect(!page.text.contains("plain.example"), "a logo not served over https is not shown")
            #expect(page.headers.first(name: "Content-Security-Policy")?.contains("img-src 'self' https:") == true)
            #expect(page.headers.first(name: "X-Frame-Options") == "DENY")

            let csrf = try Self.csrf(page)
            let wrong = try await server.request(
                .POST, "/welcome/consent",
                form: ["authorization_id": id, "csrf": csrf, "email": "hosted@example.com", "password": "not it", "action": "approve"])
            #expect(wrong.status == 400 && wrong.text.contains("The email or password is not right."))

            let allowed = try await server.request(
                .POST, "/welcome/consent",
                form: ["authorization_id": id, "csrf": csrf, "email": "hosted@example.com", "password": "correct horse battery", "action": "approve"])
            #expect(allowed.status == 303, "\(allowed.text)")
            let landing = try #require(allowed.headers.first(name: "Location"))
            let code = try #require(OAuthFlowHarness.query(landing)["code"])
            #expect(landing.hasPrefix(OAuthFlowHarness.redirect + "?") && OAuthFlowHarness.query(landing)["state"] == "st4te")
            let tokens = try await harness.redeem(client, code: code, verifier: pkce.verifier)
            #expect(tokens.status == 200 && tokens["id_token"] != nil, "\(tokens.text)")
            #expect(try OAuthFlowHarness.claims(try #require(tokens["access_token"] as? String))["sub"] as? String == user.userID)

            // The page's own sign-in left no session behind: the user's own and the app's remain.
            let grants = try await server.request(.GET, "/user/oauth/grants", bearer: user.accessToken)
            #expect(grants.jsonArray?.count == 1)
            #expect(try await server.request(.GET, path).status == 404, "an answered request is gone")
        }
    }

    @Test("deny needs no password; a forged form, a cross-site post, a second-factor account and a CAPTCHA server cannot allow")
    func refusals() async throws {
        try await Self.with { harness in
            let server = harness.server
            let client = try await harness.client()
            _ = try await server.signUp("guarded@example.com")
            let (path, id) = try Self.page(harness, try await harness.authorize(client))
            let csrf = try Self.csrf(try await server.request(.GET, path))
            let allow = ["authorization_id": id, "email": "guarded@example.com", "password": "correct horse battery", "action": "approve"]

            for forged in [allow, allow.merging(["csrf": "AAAA"]) { $1 }, allow.merging(["csrf": csrf, "authorization_id": "other"]) { $1 }] {
                let refused = try await server.request(.POST, "/welcome/consent", form: forged)
                #expect(refused.status == 403 && refused.headers.first(name: "Location") == nil)
            }
            let crossSite = try await server.request(
                .POST, "/welcome/consent", form: allow.merging(["csrf": csrf]) { $1 }, headers: [("Sec-Fetch-Site", "cross-site")])
            #expect(crossSite.status == 403 && crossSite.headers.first(name: "Location") == nil)

            let denied = try await server.request(.POST, "/welcome/consent", form: ["authorization_id": id, "csrf": csrf, "action": "deny"])
            #expect(denied.status == 303)
            #expect(OAuthFlowHarness.query(try #require(denied.headers.first(name: "Location")))["error"] == "access_denied")
            let late = try await server.request(.POST, "/welcome/consent", form: allow.merging(["csrf": csrf]) { $1 })
            #expect(late.status == 400 && late.headers.first(name: "Location") == nil)
        }
        try await Self.with(configure: {
            $0.captcha.enabled = true
            $0.captcha.provider = "hcaptcha"
            $0.captcha.secret = "s"
        }) { harness in
            let client = try await harness.client()
            let (path, id) = try Self.page(harness, try await harness.authorize(client))
            let csrf = try Self.csrf(try await harness.server.request(.GET, path))
            let refused = try await harness.server.request(
                .POST, "/welcome/consent",
                form: ["authorization_id": id, "csrf": csrf, "email": "x@example.com", "password": "correct horse battery", "action": "approve"])
            #expect(refused.status == 403 && refused.text.contains("CAPTCHA"))
        }
    }

    @Test("an account with two-step verification allows apps in the app, not on this page")
    func secondFactor() async throws {
        try await Self.with { harness in
            let server = harness.server
            let client = try await harness.client()
            let user = try await server.signUp("mfa@example.com")
            try await harness.verifyTOTPFactor(for: user)
            let (path, id) = try Self.page(harness, try await harness.authorize(client))
            let csrf = try Self.csrf(try await server.request(.GET, path))
            let refused = try await server.request(
                .POST, "/welcome/consent",
                form: ["authorization_id": id, "csrf": csrf, "email": "mfa@example.com", "password": "correct horse battery", "action": "approve"])
            #expect(refused.status == 403 && refused.text.contains("two-step verification") && refused.headers.first(name: "Location") == nil)
        }
    }
}
