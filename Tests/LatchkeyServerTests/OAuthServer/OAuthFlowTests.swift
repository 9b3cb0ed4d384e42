import Foundation
import LatchkeyTesting
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// The OAuth server's sign-in, end to end over HTTP: authorize, consent, the token endpoint,
/// ID tokens, user info, discovery and the user's grants.
@Suite("OAuth server sign-in")
struct OAuthFlowTests {
    @Test("a second app signs a user in: consent, code, tokens with its client and scopes, an ID token, user info, refresh")
    func fullFlow() async throws {
        try await OAuthFlowHarness.with { harness in
            let server = harness.server
            let client = try await harness.client()
            let user = try await server.signUp("ada@example.com", data: ["name": "Ada", "avatar_url": "https://img.example.com/ada.png"])
            let pkce = OAuthFlowHarness.PKCE()

            let started = try await harness.authorize(client, pkce: pkce)
            #expect(started.status == 302)
            let id = try harness.authorizationID(started)
            #expect(id.count == 32 && id.allSatisfy { "abcdefghijklmnopqrstuvwxyz234567".contains($0) })

            let details = try await server.request(
                .GET, "/oauth/authorizations/\(id)", bearer: user.accessToken, headers: [("Origin", OAuthFlowHarness.site)])
            #expect(details.status == 200, "\(details.text)")
            #expect(details["authorization_id"] as? String == id && details["scope"] as? String == "openid email profile")
            #expect(details["redirect_uri"] as? String == OAuthFlowHarness.redirect)
            #expect((details["client"] as? [String: Any])?["name"] as? String == "Second App")
            #expect((details["user"] as? [String: Any])?["email"] as? String == "ada@example.com")

            let approved = try await server.request(
                .POST, "/oauth/authorizations/\(id)/consent", json: ["action": "approve"], bearer: user.accessToken)
            let landing = try #require(approved["redirect_url"] as? String, "\(approved.text)")
            #expect(landing.hasPrefix(OAuthFlowHarness.redirect + "?"))
            let returned = OAuthFlowHarness.query(landing)
            #expect(returned["state"] == "st4te")
            let code = try #require(returned["code"])

            let tokens = try await harness.redeem(client, code: code, verifier: pkce.verifier)
            #expect(tokens.status == 200, "\(tokens.text)")
            #expect(tokens.headers.first(name: "Cache-Control") == "no-store")
            #expect(tokens["token_type"] as? String == "bearer" && tokens["expires_in"] as? Int == 3600 && tokens["user"] == nil)
            let access = try #require(tokens["access_token"] as? String)
            let refresh = try #require(tokens["refresh_token"] as? String)
            let claims = try OAuthFlowHarness.claims(access)
            #expect(claims["client_id"] as? String == client.id && claims["scope"] as? String == "openid email profile")
            #expect(claims["sub"] as? String == user.userID)
            #expect((claims["amr"] as? [[String: Any]])?.first?["method"] as? String == "oauth_provider/authorization_code")

            let idToken = try #require(tokens["id_token"] as? String)
            #expect(try OAuthFlowHarness.header(idToken)["alg"] as? String == "ES256")
            let identity = try OAuthFlowHarness.claims(idToken)
            #expect(identity["aud"] as? String == client.id && identity["sub"] as? String == user.userID)
            #expect(identity["nonce"] as? String == "n0nce" && identity["email"] as? String == "ada@example.com")
            #expect(identity["email_verified"] as? Bool == true && identity["name"] as? String == "Ada")
            #expect(identity["picture"] as? String == "https://img.example.com/ada.png" && identity["iss"] as? String == claims["iss"] as? String)
            #expect(identity["phone_number"] == nil)

            let info = try await server.request(.GET, "/oauth/userinfo", bearer: access)
            #expect(info.status == 200 && info["sub"] as? String == user.userID && info["email"] as? String == "ada@example.com")
            #expect(info["email_verified"] as? Bool == true && info["name"] as? String == "Ada" && info["phone"] == nil)
            // A first-party session was granted no scopes: `sub` alone.
            let own = try await server.request(.GET, "/oauth/userinfo", bearer: user.accessToken)
            #expect(own.status == 200 && Set(own.json.keys) == ["sub"])

            let refreshed = try await harness.refresh(client, refresh)
            #expect(refreshed.status == 200, "\(refreshed.text)")
            #expect(refreshed["id_token"] == nil && refreshed["refresh_token"] as? String != refresh)
            let renewed = try OAuthFlowHarness.claims(try #require(refreshed["access_token"] as? String))
            #expect(renewed["client_id"] as? String == client.id && renewed["scope"] as? String == "openid email profile")
        }
    }

    @Test("consent is remembered per client and scope, listed as a grant, and revoking it ends the app's sessions at once")
    func grants() async throws {
        try await OAuthFlowHarness.with { harness in
            let server = harness.server
            let client = try await harness.client()
            let user = try await server.signUp("grace@example.com")
            let pkce = OAuthFlowHarness.PKCE()
            let code = try await harness.code(client, for: user, pkce: pkce)
            let tokens = try await harness.redeem(client, code: code, verifier: pkce.verifier)
            let access = try #require(tokens["access_token"] as? String)
            let refresh = try #require(tokens["refresh_token"] as? String)

            let listed = try await server.request(.GET, "/user/oauth/grants", bearer: user.accessToken)
            let grants = try #require(listed.jsonArray, "\(listed.text)")
            #expect(grants.count == 1 && grants.first?["scopes"] as? [String] == ["openid", "email", "profile"])
            #expect((grants.first?["client"] as? [String: Any])?["id"] as? String == client.id)

            // The same scopes again (or fewer): approved without asking.
            let again = try harness.authorizationID(try await harness.authorize(client, ["scope": "email"]))
            let read = try await server.request(.GET, "/oauth/authorizations/\(again)", bearer: user.accessToken)
            #expect(OAuthFlowHarness.query(try #require(read["redirect_url"] as? String, "\(read.text)"))["code"] != nil)
            // More scopes: asked again.
            let more = try harness.authorizationID(try await harness.authorize(client, ["scope": "email phone"]))
            #expect(try await server.request(.GET, "/oauth/authorizations/\(more)", bearer: user.accessToken)["scope"] as? String == "email phone")

            let revoked = try await server.request(.DELETE, "/user/oauth/grants?client_id=\(client.id)", bearer: user.accessToken)
            #expect(revoked.status == 204, "\(revoked.text)")
            try await harness.refresh(client, refresh).expectOAuthError(400, "invalid_grant", "Invalid Refresh Token: Refresh Token Not Found")
            try await server.request(.GET, "/oauth/userinfo", bearer: access).expectError(403, "session_not_found")
            // The user's own session is untouched.
            #expect(try await server.request(.GET, "/user", bearer: user.accessToken).status == 200)
            #expect(try await server.request(.GET, "/user/oauth/grants", bearer: user.accessToken).jsonArray?.isEmpty == true)
            try await server.request(.DELETE, "/user/oauth/grants?client_id=\(client.id)", bearer: user.accessToken)
                .expectError(404, "oauth_consent_not_found")
            try await server.request(.DELETE, "/user/oauth/grants", bearer: user.accessToken).expectError(400, "validation_failed")
            // After revoking, the user is asked again.
            let asked = try harness.authorizationID(try await harness.authorize(client))
            #expect(
                try await server.request(.GET, "/oauth/authorizations/\(asked)", bearer: user.accessToken)["authorization_id"] as? String == asked)
        }
    }

    @Test("denying sends the browser back with access_denied and no code")
    func deny() async throws {
        try await OAuthFlowHarness.with { harness in
            let client = try await harness.client()
            let user = try await harness.server.signUp("deny@example.com")
            let id = try harness.authorizationID(try await harness.authorize(client))
            _ = try await harness.server.request(.GET, "/oauth/authorizations/\(id)", bearer: user.accessToken)
            let denied = try await harness.server.request(
                .POST, "/oauth/authorizations/\(id)/consent", json: ["action": "deny"], bearer: user.accessToken)
            let query = OAuthFlowHarness.query(try #require(denied["redirect_url"] as? String))
            #expect(query["error"] == "access_denied" && query["state"] == "st4te" && query["code"] == nil)
            let again = try await harness.server.request(
                .POST, "/oauth/authorizations/\(id)/consent", json: ["action": "approve"], bearer: user.accessToken)
            again.expectError(400, "validation_failed")
            try await harness.server.request(
                .POST, "/oauth/authorizations/\(id)/consent", json: ["action": "maybe"], bearer: user.accessToken
            ).expectError(400, "validation_failed")
        }
    }

    @Test("a public client proves itself with PKCE alone; refresh works for it and not at /token")
    func publicClient() async throws {
        try await OAuthFlowHarness.with { harness in
            let client = try await harness.client(public: true)
            #expect(client.secret == nil)
            let user = try await harness.server.signUp("public@example.com")
            let pkce = OAuthFlowHarness.PKCE()
            let code = try await harness.code(client, for: user, pkce: pkce, ["scope": "email"])
            let tokens = try await harness.redeem(client, code: code, verifier: pkce.verifier)
            #expect(tokens.status == 200 && tokens["id_token"] == nil, "\(tokens.text)")
            let refresh = try #require(tokens["refresh_token"] as? String)
            let firstParty = try await harness.server.refresh(refresh)
            #expect(firstParty.status == 400 && firstParty["error"] as? String == "invalid_client", "\(firstParty.text)")
            #expect(try await harness.refresh(client, refresh).status == 200)
            // A first-party refresh token is not the app's to spend.
            let own = try await harness.refresh(client, user.refreshToken)
            #expect(own.status == 400 && own["error"] as? String == "invalid_client")
        }
    }

    @Test("discovery documents name the endpoints under the issuer, S256 only, and the signing algorithm")
    func discovery() async throws {
        try await OAuthFlowHarness.with(configure: { $0.oauthServer.allowDynamicRegistration = true }) { harness in
            for path in [
                "/.well-known/oauth-authorization-server", "/.well-known/oauth-authorization-server/auth/v1", "/.well-known/openid-configuration",
                "/auth/v1/.well-known/openid-configuration",
            ] {
                let document = try await harness.server.request(.GET, path)
                #expect(document.status == 200, "\(path)")
                #expect(document.headers.first(name: "Cache-Control") == "public, max-age=600")
                let issuer = try #require(document["issuer"] as? String)
                #expect(issuer == harness.server.server.baseURL.absoluteString.trimmingTrailingSlash() + "/auth/v1")
                #expect(document["authorization_endpoint"] as? String == issuer + "/oauth/authorize")
                #expect(document["token_endpoint"] as? String == issuer + "/oauth/token")
                #expect(document["jwks_uri"] as? String == issuer + "/.well-known/jwks.json")
                #expect(document["registration_endpoint"] as? String == issuer + "/oauth/clients/register")
                #expect(document["code_challenge_methods_supported"] as? [String] == ["S256"])
                #expect(document["id_token_signing_alg_values_supported"] as? [String] == ["ES256"])
            }
        }
    }

    @Test("openid needs an asymmetric signing key: refused at the request, not after the code is spent")
    func openIDNeedsAsymmetricKey() async throws {
        try await OAuthFlowHarness.with(asymmetric: false) { harness in
            let client = try await harness.client()
            let refused = try await harness.authorize(client)
            let query = OAuthFlowHarness.query(try #require(refused.headers.first(name: "Location")))
            #expect(refused.status == 302 && query["error"] == "invalid_scope" && query["state"] == "st4te")
            let user = try await harness.server.signUp("hs256@example.com")
            let pkce = OAuthFlowHarness.PKCE()
            let code = try await harness.code(client, for: user, pkce: pkce, ["scope": "email"])
            #expect(try await harness.redeem(client, code: code, verifier: pkce.verifier).status == 200)
        }
    }
}
