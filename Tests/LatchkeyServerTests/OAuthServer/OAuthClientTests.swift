import Foundation
import LatchkeyTesting
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// The OAuth server's client registry: GoTrue's `/admin/oauth/clients…` and RFC 7591 dynamic
/// registration, and every redirect URI and parameter that must not get in.
@Suite("OAuth server clients")
struct OAuthClientTests {
    static let redirect = "https://app.example.com/callback"

    static func with(dynamic: Bool = false, registrationsPerIP: Int? = nil, _ body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with(configure: { configuration in
            configuration.oauthServer.enabled = true
            configuration.oauthServer.allowDynamicRegistration = dynamic
            if let registrationsPerIP { configuration.rateLimits.oauthClientRegistrationsPerIP.count = registrationsPerIP }
        }) { server in try await body(server) }
    }

    static func create(_ server: TestServer, _ body: [String: any Sendable]) async throws -> TestResponse {
        try await server.request(.POST, "/admin/oauth/clients", json: body, bearer: server.server.serviceRoleKey)
    }

    @Test("a confidential client: its secret answered once, stored only as a hash; read, listed, changed, a new secret, deleted")
    func confidentialLifecycle() async throws {
        try await Self.with { server in
            let admin = server.server.serviceRoleKey
            let created = try await Self.create(server, ["redirect_uris": [Self.redirect], "client_name": "Second App"])
            #expect(created.status == 201, "\(created.text)")
            let id = try #require(created["client_id"] as? String)
            let secret = try #require(created["client_secret"] as? String)
            #expect(secret.count == 43 && created["client_type"] as? String == "confidential")
            #expect(created["token_endpoint_auth_method"] as? String == "client_secret_basic")
            #expect(created["grant_types"] as? [String] == ["authorization_code", "refresh_token"])
            #expect(created["response_types"] as? [String] == ["code"] && created["registration_type"] as? String == "manual")
            #expect(created["redirect_uris"] as? [String] == [Self.redirect] && created["client_name"] as? String == "Second App")
            let database = try Data(contentsOf: server.directory.appendingPathComponent("latchkey.sqlite"))
            #expect(database.range(of: Data(secret.utf8)) == nil)

            let read = try await server.request(.GET, "/admin/oauth/clients/\(id)", bearer: admin)
            #expect(read.status == 200 && read["client_id"] as? String == id)
            #expect(!read.json.keys.contains("client_secret") && !read.text.contains(secret))
            let listed = try await server.request(.GET, "/admin/oauth/clients", bearer: admin)
            #expect((listed["clients"] as? [[String: Any]])?.map { $0["client_id"] as? String } == [id])
            #expect(!listed.text.contains("\"client_secret\""))

            let renamed = try await server.request(
                .PUT, "/admin/oauth/clients/\(id)", json: ["client_name": "", "logo_uri": "https://app.example.com/logo.png"], bearer: admin)
            #expect(renamed.status == 200 && renamed["client_name"] == nil, "\(renamed.text)")
            #expect(renamed["logo_uri"] as? String == "https://app.example.com/logo.png" && renamed["client_secret"] == nil)
            try await server.request(.PUT, "/admin/oauth/clients/\(id)", json: [:], bearer: admin).expectError(400, "validation_failed")
            let nothing = try await server.request(.PUT, "/admin/oauth/clients/\(id)", rawBody: #"{"client_name":null}"#, bearer: admin)
            nothing.expectError(400, "validation_failed")

            let regenerated = try await server.request(.POST, "/admin/oauth/clients/\(id)/regenerate_secret", bearer: admin)
            let newSecret = try #require(regenerated["client_secret"] as? String)
            #expect(regenerated.status == 200 && newSecret != secret && newSecret.count == 43)

            #expect(try await server.request(.DELETE, "/admin/oauth/clients/\(id)", bearer: admin).status == 204)
            try await server.request(.GET, "/admin/oauth/clients/\(id)", bearer: admin).expectError(404, "oauth_client_not_found")
            try await server.request(.POST, "/admin/oauth/clients/\(id)/regenerate_secret", bearer: admin)
                .expectError(404, "oauth_client_not_found")
            let empty = try await server.request(.GET, "/admin/oauth/clients", bearer: admin)
            #expect(empty.status == 200 && (empty["clients"] as? [Any])?.isEmpty == true)
        }
    }

    @Test("a public client (auth method none) has no secret and cannot be given one; its type never changes")
    func publicClient() async throws {
        try await Self.with { server in
            let admin = server.server.serviceRoleKey
            let created = try await Self.create(server, ["redirect_uris": ["myapp://callback"], "token_endpoint_auth_method": "none"])
            #expect(created.status == 201 && created["client_type"] as? String == "public", "\(created.text)")
            #expect(!created.json.keys.contains("client_secret"))
            let id = try #require(created["client_id"] as? String)
            try await server.request(.POST, "/admin/oauth/clients/\(id)/regenerate_secret", bearer: admin).expectError(400, "validation_failed")
            let toSecret = try await server.request(
                .PUT, "/admin/oauth/clients/\(id)", json: ["token_endpoint_auth_method": "client_secret_post"], bearer: admin)
            toSecret.expectError(400, "validation_failed")
            let publicByType = try await Self.create(server, ["redirect_uris": [Self.redirect], "client_type": "public"])
            #expect(publicByType["token_endpoint_auth_method"] as? String == "none" && publicByType["client_secret"] == nil)
        }
    }

    @Test(
        "refused redirect URIs: script and file schemes, plain http off the loopback host, a fragment, no host, too many; loopback http and app schemes pass",
        arguments: [
            "javascript://app.example.com/%0aalert(1)", "data://app.example.com/x", "file://host/etc/passwd", "JAVASCRIPT://x.example/y",
            "http://app.example.com/callback", "http://localhost.evil.com/cb", "https://app.example.com/callback#frag", "myapp:/callback",
            "/callback", "", "https:///callback",
        ])
    func refusedRedirectURIs(uri: String) async throws {
        try await Self.with(dynamic: true) { server in
            let admin = try await Self.create(server, ["redirect_uris": [uri]])
            admin.expectError(400, "validation_failed")
            let dynamic = try await server.request(.POST, "/oauth/clients/register", json: ["redirect_uris": [Self.redirect, uri]])
            dynamic.expectError(400, "validation_failed")
        }
        #expect(OAuthClients.redirectURIProblem(uri) != nil)
    }

    @Test("accepted redirect URIs: https, loopback http (localhost, 127.0.0.1, [::1]) with a port, an app's own scheme")
    func acceptedRedirectURIs() async throws {
        let uris = ["https://app.example.com/cb?x=1", "http://localhost:3000/cb", "http://127.0.0.1:8080/cb", "http://[::1]:9000/cb", "myapp://cb"]
        for uri in uris { #expect(OAuthClients.redirectURIProblem(uri) == nil, "\(uri)") }
        try await Self.with { server in
            let created = try await Self.create(server, ["redirect_uris": uris])
            #expect(created.status == 201 && created["redirect_uris"] as? [String] == uris, "\(created.text)")
        }
    }

    @Test("refused parameters: no or eleven redirect URIs, an unknown grant type, type and method that disagree, bad names and URIs, a bad client id")
    func refusedParameters() async throws {
        try await Self.with { server in
            let bad: [[String: any Sendable]] = [
                [:], ["redirect_uris": [String]()], ["redirect_uris": (0...10).map { "https://app.example.com/\($0)" }],
                ["redirect_uris": [Self.redirect], "grant_types": ["password"]],
                ["redirect_uris": [Self.redirect], "grant_types": ["authorization_code", "client_credentials"]],
                ["redirect_uris": [Self.redirect], "client_type": "public", "token_endpoint_auth_method": "client_secret_basic"],
                ["redirect_uris": [Self.redirect], "client_type": "confidential", "token_endpoint_auth_method": "none"],
                ["redirect_uris": [Self.redirect], "client_type": "trusted"],
                ["redirect_uris": [Self.redirect], "token_endpoint_auth_method": "private_key_jwt"],
                ["redirect_uris": [Self.redirect], "client_name": String(repeating: "n", count: 1025)],
                ["redirect_uris": [Self.redirect], "client_uri": "not a url"],
                ["redirect_uris": [Self.redirect], "logo_uri": "https://" + String(repeating: "l", count: 2048)],
            ]
            for body in bad {
                let response = try await Self.create(server, body)
                response.expectError(400, "validation_failed")
            }
            #expect(try await Self.create(server, ["redirect_uris": "https://app.example.com"]).status == 400)
            let listed = try await server.request(.GET, "/admin/oauth/clients", bearer: server.server.serviceRoleKey)
            #expect((listed["clients"] as? [Any])?.isEmpty == true, "nothing was created")
            let admin = server.server.serviceRoleKey
            try await server.request(.GET, "/admin/oauth/clients/not-a-uuid", bearer: admin).expectError(400, "validation_failed")
            try await server.request(.GET, "/admin/oauth/clients/\(UUID())", bearer: admin).expectError(404, "oauth_client_not_found")
        }
    }

    @Test("dynamic registration: 403 until allowed; then a public client registers itself, and past the limit a caller gets 429")
    func dynamicRegistration() async throws {
        try await Self.with { server in
            let refused = try await server.request(.POST, "/oauth/clients/register", json: ["redirect_uris": [Self.redirect]])
            refused.expectError(403, "oauth_dynamic_client_registration_disabled")
        }
        try await Self.with(dynamic: true, registrationsPerIP: 2) { server in
            // As an MCP client sends it: unset members as null, members GoTrue ignores.
            let first = try await server.request(
                .POST, "/oauth/clients/register",
                rawBody:
                    #"{"redirect_uris":["http://127.0.0.1:33418/callback"],"token_endpoint_auth_method":"none","client_name":"MCP agent","client_uri":null,"scope":null,"response_types":["code"]}"#
            )
            let body: [String: any Sendable] = ["redirect_uris": ["http://127.0.0.1:33418/callback"], "token_endpoint_auth_method": "none"]
            #expect(first.status == 201 && first["registration_type"] as? String == "dynamic" && first["client_type"] as? String == "public")
            #expect(try await server.request(.POST, "/oauth/clients/register", json: body).status == 201)
            try await server.request(.POST, "/oauth/clients/register", json: body).expectError(429, "over_request_rate_limit")
        }
    }
}
