import Foundation
import LatchkeyTesting
import LatchkeyWire
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// The server's own "Apps that can sign in as you" page: what it shows, taking an app back, and
/// every way to read or change someone else's apps that must stay shut.
@Suite("OAuth server: the hosted apps page")
struct HostedGrantsTests {
    static let password = "correct horse battery"

    /// The hidden page pass of a rendered list.
    static func pass(_ page: TestResponse) throws -> String {
        let marker = #"name="pass" value=""#
        let start = try #require(page.text.range(of: marker), "no pass in: \(page.text)").upperBound
        return String(page.text[start...].prefix { $0 != "\"" })
    }

    /// `user` allowed `client`: its tokens.
    static func allow(_ harness: OAuthFlowHarness, _ client: OAuthFlowHarness.Client, for user: TestSession) async throws -> TestResponse {
        let pkce = OAuthFlowHarness.PKCE()
        let code = try await harness.code(client, for: user, pkce: pkce, ["scope": "openid email offline_access"])
        let tokens = try await harness.redeem(client, code: code, verifier: pkce.verifier)
        #expect(tokens.status == 200, "\(tokens.text)")
        return tokens
    }

    static func signIn(_ server: TestServer, _ email: String, _ password: String = password) async throws -> TestResponse {
        try await server.request(.POST, HostedGrants.path, form: ["action": "sign_in", "email": email, "password": password])
    }

    @Test("the page lists the apps after the password, in words; taking one back signs the app out at once")
    func listAndRevoke() async throws {
        try await OAuthFlowHarness.with { harness in
            let server = harness.server
            let first = try await harness.client(name: "Second <App>")
            let second = try await harness.client(name: "Third App")
            let user = try await server.signUp("apps@example.com")
            let tokens = try await Self.allow(harness, first, for: user)
            _ = try await Self.allow(harness, second, for: user)

            let form = try await server.request(.GET, HostedGrants.path)
            #expect(form.status == 200 && form.text.contains("Show my apps") && !form.text.contains("Second"))
            #expect(form.headers.first(name: "Cache-Control") == "no-store" && form.headers.first(name: "X-Frame-Options") == "DENY")

            let wrong = try await Self.signIn(server, "apps@example.com", "not it")
            #expect(wrong.status == 400 && wrong.text.contains("The email or password is not right.") && !wrong.text.contains("Second"))
            let unknown = try await Self.signIn(server, "nobody@example.com")
            #expect(unknown.status == 400 && unknown.text.contains("The email or password is not right."), "no hint that the account is missing")

            let list = try await Self.signIn(server, "apps@example.com")
            #expect(list.status == 200, "\(list.text)")
            #expect(list.text.contains("Second &lt;App&gt;") && !list.text.contains("Second <App>"), "the name is escaped")
            #expect(list.text.contains("Third App") && list.text.contains("your email address"))
            #expect(list.text.contains("all this while you are away"))
            #expect(list.text.contains(HostedGrants.day(WireDate.format(server.clock.now()))))

            let revoked = try await server.request(
                .POST, HostedGrants.path, form: ["action": "revoke", "pass": try Self.pass(list), "client_id": first.id])
            #expect(revoked.status == 200 && revoked.text.contains("Second &lt;App&gt; can no longer sign in as you"), "\(revoked.text)")
            #expect(!revoked.text.contains("revoke-\(first.id)") && revoked.text.contains("revoke-\(second.id)"))
            let refreshed = try await harness.refresh(first, try #require(tokens["refresh_token"] as? String))
            #expect(refreshed.status == 400 && refreshed["error"] as? String == "invalid_grant", "\(refreshed.text)")
            let userInfo = try await server.request(.GET, "/oauth/userinfo", bearer: try #require(tokens["access_token"] as? String))
            #expect(userInfo.status == 403 || userInfo.status == 401, "the app's access token stopped working: \(userInfo.status)")
            let grants = try await server.request(.GET, "/user/oauth/grants", bearer: user.accessToken)
            #expect(grants.jsonArray?.count == 1, "the other app keeps its grant")

            let again = try await server.request(
                .POST, HostedGrants.path, form: ["action": "revoke", "pass": try Self.pass(revoked), "client_id": second.id])
            #expect(again.status == 200 && again.text.contains("No app can sign in as you."))
            #expect(try await server.request(.GET, "/user", bearer: user.accessToken).status == 200, "the user's own session stands")
        }
    }

    @Test("a forged, altered, expired or cross-site pass takes nothing back, and one user's pass never reaches another's apps")
    func passRefusals() async throws {
        let clock = ManualServerClock()
        try await OAuthFlowHarness.with(clock: clock) { harness in
            let server = harness.server
            let client = try await harness.client()
            let victim = try await server.signUp("victim@example.com")
            _ = try await Self.allow(harness, client, for: victim)
            let attackerSession = try await server.signUp("attacker@example.com")
            _ = try await Self.allow(harness, client, for: attackerSession)
            let pass = try Self.pass(try await Self.signIn(server, "attacker@example.com"))
            let parts = pass.split(separator: ".").map(String.init)
            try #require(parts.count == 3)

            func revoke(_ pass: String, headers: [(String, String)] = []) async throws -> TestResponse {
                try await server.request(
                    .POST, HostedGrants.path, form: ["action": "revoke", "pass": pass, "client_id": client.id], headers: headers)
            }
            func victimStillHasTheApp() async throws -> Bool {
                try await server.request(.GET, "/user/oauth/grants", bearer: victim.accessToken).jsonArray?.count == 1
            }

            let forgeries = [
                "", "garbage", parts[0] + "." + parts[1],
                victim.userID + "." + parts[1] + "." + parts[2],  // another user under the attacker's MAC
                parts[0] + "." + String(Int(parts[1])! + 86_400) + "." + parts[2],  // a later expiry
                parts[0] + "." + parts[1] + "." + String(parts[2].reversed()),
            ]
            for forged in forgeries {
                let refused = try await revoke(forged)
                #expect(refused.status == 403 && refused.text.contains("Sign in again"), "\(forged): \(refused.status)")
            }
            #expect(try await victimStillHasTheApp())

            let crossSite = try await revoke(pass, headers: [("Sec-Fetch-Site", "cross-site")])
            #expect(crossSite.status == 403)
            #expect(try await server.request(.GET, "/user/oauth/grants", bearer: attackerSession.accessToken).jsonArray?.count == 1)

            clock.advance(by: HostedGrants.passLifetime + 1)
            let expired = try await revoke(pass)
            #expect(expired.status == 403 && expired.text.contains("expired"))
            #expect(try await server.request(.GET, "/user/oauth/grants", bearer: attackerSession.accessToken).jsonArray?.count == 1)

            // A valid pass only ever takes back its own holder's grant.
            let fresh = try Self.pass(try await Self.signIn(server, "attacker@example.com"))
            let own = try await revoke(fresh)
            #expect(own.status == 200 && own.text.contains("can no longer sign in as you"))
            #expect(try await victimStillHasTheApp())
        }
    }

    @Test("a banned or deleted user's pass stops working; two-step accounts and CAPTCHA servers are sent to the app")
    func accountRefusals() async throws {
        try await OAuthFlowHarness.with { harness in
            let server = harness.server
            let client = try await harness.client()
            let user = try await server.signUp("banned@example.com")
            _ = try await Self.allow(harness, client, for: user)
            let pass = try Self.pass(try await Self.signIn(server, "banned@example.com"))
            let ban = try await server.request(
                .PUT, "/admin/users/\(user.userID)", json: ["ban_duration": "1h"], bearer: server.server.serviceRoleKey)
            #expect(ban.status == 200, "\(ban.text)")
            let refused = try await server.request(.POST, HostedGrants.path, form: ["action": "revoke", "pass": pass, "client_id": client.id])
            #expect(refused.status == 403 && !refused.text.contains("Second App"))

            let deleted = try await server.signUp("deleted@example.com")
            _ = try await Self.allow(harness, client, for: deleted)
            let deletedPass = try Self.pass(try await Self.signIn(server, "deleted@example.com"))
            let removal = try await server.request(.DELETE, "/admin/users/\(deleted.userID)", bearer: server.server.serviceRoleKey)
            #expect(removal.status == 200, "\(removal.text)")
            let gone = try await server.request(.POST, HostedGrants.path, form: ["action": "revoke", "pass": deletedPass, "client_id": client.id])
            #expect(gone.status == 403 && gone.text.contains("Sign in again"))

            let mfa = try await server.signUp("mfa-apps@example.com")
            try await harness.verifyTOTPFactor(for: mfa)
            let secondFactor = try await Self.signIn(server, "mfa-apps@example.com")
            #expect(secondFactor.status == 403 && secondFactor.text.contains("two-step verification") && !secondFactor.text.contains("name=\"pass\""))
        }
        try await OAuthFlowHarness.with(configure: {
            $0.captcha.enabled = true
            $0.captcha.provider = "hcaptcha"
            $0.captcha.secret = "s"
        }) { harness in
            let refused = try await Self.signIn(harness.server, "x@example.com")
            #expect(refused.status == 403 && refused.text.contains("CAPTCHA"))
        }
        try await OAuthFlowHarness.with(configure: { $0.oauthServer.enabled = false }) { harness in
            let page = try await harness.server.request(.GET, HostedGrants.path)
            #expect(page.status == 404, "off with the OAuth server")
        }
    }
}
