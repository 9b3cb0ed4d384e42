import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// GoTrue's admin API for custom OpenID providers, and signing in with one (`custom:<name>`):
/// the ID-token grant and the browser flow against a local OpenID provider.
@Suite("Custom providers")
struct CustomProviderTests {
    static let secret = "acme-client-secret-never-shown"

    static func with(
        enabled: Bool = true, _ body: (TestServer, TestIdentityProvider, BrowserSignInTests.Browser) async throws -> Void
    ) async throws {
        try await BrowserSignInTests.with(configure: { configuration, _ in
            configuration.external.customProvidersEnabled = enabled
        }) { server, provider, browser in
            try await body(server, provider, browser)
        }
    }

    static func create(
        _ server: TestServer, issuer: String, identifier: String = "custom:acme", extra: [String: any Sendable] = [:]
    )
        async throws -> TestResponse
    {
        var body: [String: any Sendable] = [
            "provider_type": "oidc", "identifier": identifier, "name": "Acme", "client_id": "acme-app", "client_secret": secret,
            "issuer": issuer, "acceptable_client_ids": ["acme-ios"], "scopes": ["email", "profile"],
        ]
        for (key, value) in extra { body[key] = value }
        return try await server.request(.POST, "/admin/custom-providers", json: body, bearer: server.server.serviceRoleKey)
    }

    @Test("create, read, list, change and delete; the client secret is never answered nor stored in clear")
    func adminAPI() async throws {
        try await Self.with { server, provider, _ in
            let admin = server.server.serviceRoleKey
            let created = try await Self.create(server, issuer: provider.issuer)
            #expect(created.status == 201, "\(created.text)")
            #expect(created["identifier"] as? String == "custom:acme" && created["provider_type"] as? String == "oidc")
            #expect(created["pkce_enabled"] as? Bool == true && created["enabled"] as? Bool == true)
            #expect(!created.text.contains(Self.secret) && created["client_secret"] == nil)

            #expect(try await Self.create(server, issuer: provider.issuer).errorCode == "conflict")
            let listed = try await server.request(.GET, "/admin/custom-providers?type=oidc", bearer: admin)
            #expect((listed["providers"] as? [[String: Any]])?.count == 1)
            #expect(((try await server.request(.GET, "/admin/custom-providers?type=oauth2", bearer: admin))["providers"] as? [Any])?.isEmpty == true)

            let changed = try await server.request(
                .PUT, "/admin/custom-providers/custom:acme", json: ["name": "Acme Corp", "client_secret": "rotated-secret"], bearer: admin)
            #expect(changed.status == 200 && changed["name"] as? String == "Acme Corp")
            #expect(!changed.text.contains("rotated-secret"))
            let read = try await server.request(.GET, "/admin/custom-providers/custom:acme", bearer: admin)
            #expect(read["name"] as? String == "Acme Corp" && read["client_id"] as? String == "acme-app")

            let database = try Data(contentsOf: server.directory.appendingPathComponent("latchkey.sqlite"))
            #expect(database.range(of: Data("rotated-secret".utf8)) == nil && database.range(of: Data(Self.secret.utf8)) == nil)

            #expect(try await server.request(.DELETE, "/admin/custom-providers/custom:acme", bearer: admin).status == 200)
            let gone = try await server.request(.GET, "/admin/custom-providers/custom:acme", bearer: admin)
            #expect(gone.status == 404 && gone.errorCode == "custom_provider_not_found")
        }
    }

    @Test("refused: no service_role key, a bad identifier, the oauth2 type, an issuer that does not answer or is not https")
    func refusals() async throws {
        try await Self.with { server, provider, _ in
            let user = try await server.signUp("ada@example.com")
            let asUser = try await server.request(.GET, "/admin/custom-providers", bearer: user.accessToken)
            #expect(asUser.status == 403)
            #expect(try await server.request(.GET, "/admin/custom-providers").status == 401)
            #expect(try await Self.create(server, issuer: provider.issuer, identifier: "acme").status == 400)
            #expect(try await Self.create(server, issuer: provider.issuer, identifier: "custom:Acme Corp").status == 400)
            #expect(try await Self.create(server, issuer: provider.issuer, extra: ["provider_type": "oauth2"]).status == 400)
            #expect(try await Self.create(server, issuer: provider.issuer + "/nothing-here").status == 400)
            #expect(try await Self.create(server, issuer: "ftp://example.com").status == 400)
            let noSecret = try await server.request(
                .POST, "/admin/custom-providers",
                json: ["provider_type": "oidc", "identifier": "custom:x", "client_id": "a", "issuer": provider.issuer],
                bearer: server.server.serviceRoleKey)
            #expect(noSecret.status == 400)
        }
    }

    @Test("an ID token of a custom provider signs in (its acceptable client IDs too); off, unknown or disabled it is refused")
    func idTokenGrant() async throws {
        try await Self.with { server, provider, _ in
            #expect(try await Self.create(server, issuer: provider.issuer, extra: ["attribute_mapping": ["nickname": "handle"]]).status == 201)
            let token = try provider.idToken(
                subject: "acme-1", audience: "acme-ios", email: "wile@acme.example", issuedAt: server.clock.now(), claims: ["handle": "wile-e"])
            let signedIn = try await IDTokenGrantTests.grant(server, token, provider: "custom:acme")
            #expect(signedIn.status == 200, "\(signedIn.text)")
            let identity = try #require(((signedIn["user"] as? [String: Any])?["identities"] as? [[String: Any]])?.first)
            #expect(identity["provider"] as? String == "custom:acme")
            #expect((identity["identity_data"] as? [String: Any])?["nickname"] as? String == "wile-e")

            let unknown = try await IDTokenGrantTests.grant(server, token, provider: "custom:nope")
            #expect(unknown.status == 400)
            _ = try await server.request(
                .PUT, "/admin/custom-providers/custom:acme", json: ["enabled": false], bearer: server.server.serviceRoleKey)
            #expect(try await IDTokenGrantTests.grant(server, token, provider: "custom:acme").errorCode == "provider_disabled")
        }
        try await Self.with(enabled: false) { server, provider, _ in
            #expect(try await Self.create(server, issuer: provider.issuer).status == 201)
            let token = try provider.idToken(subject: "acme-1", audience: "acme-app", email: "wile@acme.example", issuedAt: server.clock.now())
            let refused = try await IDTokenGrantTests.grant(server, token, provider: "custom:acme")
            #expect(refused.status == 400 && refused.text.contains("Custom OAuth providers are disabled"))
        }
    }

    @Test("the browser flow with a custom provider: PKCE to the provider, the identity named custom:acme")
    func browserFlow() async throws {
        try await Self.with { server, provider, browser in
            #expect(try await Self.create(server, issuer: provider.issuer).status == 201)
            provider.signInNext(subject: "acme-2", email: "road@acme.example")
            let landed = try await browser.follow(BrowserSignInTests.authorize(server, provider: "custom:acme"))
            let location = try #require(landed.headers.first(name: "Location"))
            let request = try #require(provider.authorizationRequests.last)
            #expect(request["client_id"] == "acme-app" && request["code_challenge_method"] == "S256" && request["scope"] == "openid email profile")
            #expect(provider.receivedClientSecrets.last == Self.secret, "the sealed secret is opened for the exchange")
            let me = try await server.request(.GET, "/user", bearer: BrowserSignInTests.fragment(location)["access_token"] ?? "")
            #expect((me["identities"] as? [[String: Any]])?.first?["provider"] as? String == "custom:acme", "\(location)")
        }
    }

    @Test("an oauth2 provider: hand-given endpoints, the person from user-info through attribute_mapping; no ID tokens")
    func oauth2Provider() async throws {
        try await Self.with { server, provider, browser in
            let admin = server.server.serviceRoleKey
            let missing = try await server.request(
                .POST, "/admin/custom-providers",
                json: ["provider_type": "oauth2", "identifier": "custom:plain", "client_id": "plain-app", "client_secret": "s"], bearer: admin)
            #expect(missing.status == 400 && missing.errorCode == "validation_failed")
            let created = try await server.request(
                .POST, "/admin/custom-providers",
                json: [
                    "provider_type": "oauth2", "identifier": "custom:plain", "client_id": "plain-app", "client_secret": "plain-secret",
                    "authorization_url": provider.issuer + "/authorize", "token_url": provider.issuer + "/token",
                    "userinfo_url": provider.issuer + "/userinfo", "scopes": ["profile"], "attribute_mapping": ["nickname": "name"],
                ], bearer: admin)
            #expect(created.status == 201, "\(created.text)")
            #expect(created["provider_type"] as? String == "oauth2" && created["userinfo_url"] as? String == provider.issuer + "/userinfo")
            #expect(created["discovery_url"] == nil && !created.text.contains("plain-secret"))
            let oauth2Only = try await server.request(.GET, "/admin/custom-providers?type=oauth2", bearer: admin)
            #expect((oauth2Only["providers"] as? [[String: Any]])?.compactMap { $0["identifier"] as? String } == ["custom:plain"])

            provider.signInNext(subject: "plain-7", email: "Plain@Example.com", name: "Plain Person")
            let landed = try await browser.follow(BrowserSignInTests.authorize(server, provider: "custom:plain"))
            let location = try #require(landed.headers.first(name: "Location"))
            let request = try #require(provider.authorizationRequests.last)
            #expect(request["scope"] == "profile" && request["code_challenge_method"] == "S256" && request["nonce"] == nil)
            let me = try await server.request(.GET, "/user", bearer: BrowserSignInTests.fragment(location)["access_token"] ?? "")
            #expect(me["email"] as? String == "plain@example.com", "\(location)")
            let identity = try #require((me["identities"] as? [[String: Any]])?.first)
            #expect(identity["provider"] as? String == "custom:plain" && identity["id"] as? String == "plain-7")
            #expect((identity["identity_data"] as? [String: Any])?["nickname"] as? String == "Plain Person")

            let token = try provider.idToken(subject: "plain-7", audience: "plain-app", issuedAt: server.clock.now())
            #expect(try await IDTokenGrantTests.grant(server, token, provider: "custom:plain").status == 400)
        }
    }
}
