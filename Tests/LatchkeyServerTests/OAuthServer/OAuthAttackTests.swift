import Foundation
import LatchkeyTesting
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// Every way into the OAuth server's sign-in that must stay shut: each test tries to get in.
@Suite("OAuth server sign-in: attacks")
struct OAuthAttackTests {
    @Test(
        "a redirect URI that is not a registered one character for character is refused here, never redirected to",
        arguments: [
            "https://second.example.com/callback/evil", "https://second.example.com/callback/", "https://SECOND.example.com/callback",
            "https://second.example.com:443/callback", "https://second.example.com:8443/callback", "https://second.example.com/callback#x",
            "https://second.example.com/callback?next=https://evil.example", "https://second.example.com/Callback",
            "http://second.example.com/callback", "https://second.example.com.evil.example/callback", "https://evil.example/callback",
            "",
        ])
    func redirectURIs(candidate: String) async throws {
        try await OAuthFlowHarness.with { harness in
            let client = try await harness.client()
            let response = try await harness.authorize(client, ["redirect_uri": candidate])
            response.expectError(400, "validation_failed")
            #expect(response.headers.first(name: "Location") == nil)
        }
    }

    @Test("an unknown, deleted or malformed client is refused here, never redirected")
    func unknownClients() async throws {
        try await OAuthFlowHarness.with { harness in
            let client = try await harness.client()
            try await harness.authorize(.init(id: UUID().uuidString)).expectError(400, "oauth_client_not_found")
            try await harness.authorize(.init(id: "not-a-uuid")).expectError(400, "oauth_client_not_found")
            try await harness.authorize(.init(id: "")).expectError(400, "validation_failed")
            _ = try await harness.server.request(.DELETE, "/admin/oauth/clients/\(client.id)", bearer: harness.server.server.serviceRoleKey)
            try await harness.authorize(client).expectError(400, "oauth_client_not_found")
        }
    }

    @Test(
        "PKCE cannot be downgraded or left out, and a bad request goes back to the client as invalid_request",
        arguments: [
            ["code_challenge_method": "plain"], ["code_challenge_method": nil], ["code_challenge": nil],
            ["code_challenge": String(repeating: "a", count: 42)], ["code_challenge": String(repeating: "a", count: 42) + "="],
            ["response_type": "token"], ["scope": "openid admin"], ["scope": " "], ["resource": "https://api.example.com/#x"],
            ["resource": "api"], ["nonce": String(repeating: "n", count: 256)],
        ] as [[String: String?]])
    func refusedRequests(parameters: [String: String?]) async throws {
        try await OAuthFlowHarness.with { harness in
            let client = try await harness.client()
            let response = try await harness.authorize(client, parameters)
            #expect(response.status == 302)
            let location = try #require(response.headers.first(name: "Location"))
            #expect(location.hasPrefix(OAuthFlowHarness.redirect + "?"), "\(location)")
            let query = OAuthFlowHarness.query(location)
            #expect(query["error"] == "invalid_request" && query["state"] == "st4te" && query["authorization_id"] == nil, "\(location)")
        }
    }

    @Test("the code needs its verifier: none, another's, or the challenge itself are refused, and the code still works after")
    func verifier() async throws {
        try await OAuthFlowHarness.with { harness in
            let client = try await harness.client()
            let user = try await harness.server.signUp("pkce@example.com")
            let pkce = OAuthFlowHarness.PKCE()
            let code = try await harness.code(client, for: user, pkce: pkce)
            for wrong in [nil, OAuthFlowHarness.PKCE().verifier, pkce.challenge] {
                let refused = try await harness.redeem(client, code: code, verifier: wrong)
                #expect(refused.status == 400 && refused["error"] as? String == "invalid_grant", "\(refused.text)")
                #expect(refused["access_token"] == nil)
            }
            // A redirect URI other than the one the code was issued for.
            let elsewhere = try await harness.redeem(
                client, code: code, verifier: pkce.verifier, extra: ["redirect_uri": "https://second.example.com/callback/"])
            #expect(elsewhere["error"] as? String == "invalid_grant")
            #expect(try await harness.redeem(client, code: code, verifier: pkce.verifier).status == 200)
        }
    }

    @Test("a code issued to one client is refused to another, even one with valid credentials (code injection, mix-up)")
    func codeInjection() async throws {
        try await OAuthFlowHarness.with { harness in
            let honest = try await harness.client()
            let attacker = try await harness.client(name: "Attacker")
            let user = try await harness.server.signUp("victim@example.com")
            let pkce = OAuthFlowHarness.PKCE()
            let code = try await harness.code(honest, for: user, pkce: pkce)
            let stolen = try await harness.redeem(attacker, code: code, verifier: pkce.verifier)
            #expect(stolen.status == 400 && stolen["error"] as? String == "invalid_grant" && stolen["access_token"] == nil)
            #expect(stolen["error_description"] as? String == "Authorization code was not issued for this client")
            // A refresh token of one client's session is refused to another.
            let tokens = try await harness.redeem(honest, code: code, verifier: pkce.verifier)
            let refresh = try #require(tokens["refresh_token"] as? String)
            let mixed = try await harness.refresh(attacker, refresh)
            #expect(mixed.status == 400 && mixed["error"] as? String == "invalid_client", "\(mixed.text)")
            #expect(try await harness.refresh(honest, refresh).status == 200)
        }
    }

    @Test("a code presented again after it was redeemed is refused and ends the session it started")
    func replay() async throws {
        try await OAuthFlowHarness.with { harness in
            let client = try await harness.client()
            let user = try await harness.server.signUp("replay@example.com")
            let pkce = OAuthFlowHarness.PKCE()
            let code = try await harness.code(client, for: user, pkce: pkce)
            let first = try await harness.redeem(client, code: code, verifier: pkce.verifier)
            let access = try #require(first["access_token"] as? String)
            let refresh = try #require(first["refresh_token"] as? String)
            #expect(try await harness.server.request(.GET, "/oauth/userinfo", bearer: access).status == 200)

            let second = try await harness.redeem(client, code: code, verifier: pkce.verifier)
            #expect(second.status == 400 && second["error"] as? String == "invalid_grant" && second["access_token"] == nil)
            try await harness.server.request(.GET, "/oauth/userinfo", bearer: access).expectError(403, "session_not_found")
            try await harness.refresh(client, refresh).expectOAuthError(400, "invalid_grant", "Invalid Refresh Token: Refresh Token Not Found")
            // A third try is refused too.
            #expect(try await harness.redeem(client, code: code, verifier: pkce.verifier)["error"] as? String == "invalid_grant")
        }
    }

    @Test("redemptions of one code at once: every session the code started is ended")
    func concurrentRedemptions() async throws {
        try await OAuthFlowHarness.with { harness in
            let client = try await harness.client()
            let user = try await harness.server.signUp("race@example.com")
            let pkce = OAuthFlowHarness.PKCE()
            let code = try await harness.code(client, for: user, pkce: pkce)
            let answers = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for _ in 0..<4 { group.addTask { try await harness.redeem(client, code: code, verifier: pkce.verifier) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(answers.filter { $0.status == 200 }.count <= 1 && answers.count == 4)
            // Whatever was issued, every session from the code is ended: the code was used more than once.
            for answer in answers {
                if let refresh = answer["refresh_token"] as? String {
                    try await harness.refresh(client, refresh).expectOAuthError(
                        400, "invalid_grant", "Invalid Refresh Token: Refresh Token Not Found")
                }
            }
        }
    }

    @Test("client authentication: wrong secret, wrong method, a public client with a secret, an unknown client")
    func clientAuthentication() async throws {
        try await OAuthFlowHarness.with { harness in
            let confidential = try await harness.client()
            let publicClient = try await harness.client(public: true)
            let user = try await harness.server.signUp("auth@example.com")
            let pkce = OAuthFlowHarness.PKCE()
            let code = try await harness.code(confidential, for: user, pkce: pkce)
            let form = ["grant_type": "authorization_code", "code": code, "code_verifier": pkce.verifier]
            let attempts: [([String: String], [(String, String)])] = [
                (form, OAuthFlowHarness.Client(id: confidential.id, secret: OAuthClientSecret.generate()).basic),
                (form.merging(["client_id": confidential.id, "client_secret": confidential.secret ?? ""]) { $1 }, []),
                (form.merging(["client_id": confidential.id]) { $1 }, []),
                (form, OAuthFlowHarness.Client(id: UUID().uuidString, secret: "x").basic),
                (form, [("Authorization", "Basic !!!")]),
                (form, [("Authorization", "Basic " + Data("no-colon".utf8).base64EncodedString())]),
                (form.merging(["client_id": publicClient.id, "client_secret": "anything"]) { $1 }, []),
                (form, []),
            ]
            for (fields, headers) in attempts {
                let refused = try await harness.server.request(.POST, "/oauth/token", form: fields, headers: headers)
                // RFC 6749 §5.2: 401 with a challenge when Basic credentials failed, else 400.
                let basic = !headers.isEmpty
                refused.expectOAuthError(basic ? 401 : 400, "invalid_client")
                #expect(refused.headers.first(name: "WWW-Authenticate") == (basic ? #"Basic realm="oauth""# : nil))
                #expect(refused["access_token"] == nil)
            }
            #expect(try await harness.redeem(confidential, code: code, verifier: pkce.verifier).status == 200)
        }
    }

    @Test("the authorization is the first reader's: another user cannot read, approve or redeem it; a foreign page cannot ask")
    func otherUsers() async throws {
        try await OAuthFlowHarness.with { harness in
            let server = harness.server
            let client = try await harness.client()
            let owner = try await server.signUp("owner@example.com")
            let intruder = try await server.signUp("intruder@example.com")
            let id = try harness.authorizationID(try await harness.authorize(client))
            // Consent before reading binds nothing and approves nothing.
            try await server.request(.POST, "/oauth/authorizations/\(id)/consent", json: ["action": "approve"], bearer: owner.accessToken)
                .expectError(404, "oauth_authorization_not_found")
            try await server.request(
                .GET, "/oauth/authorizations/\(id)", bearer: owner.accessToken, headers: [("Origin", "https://evil.example")]
            ).expectError(400, "validation_failed")
            #expect(try await server.request(.GET, "/oauth/authorizations/\(id)", bearer: owner.accessToken).status == 200)
            try await server.request(.GET, "/oauth/authorizations/\(id)", bearer: intruder.accessToken).expectError(
                404, "oauth_authorization_not_found")
            try await server.request(.POST, "/oauth/authorizations/\(id)/consent", json: ["action": "approve"], bearer: intruder.accessToken)
                .expectError(404, "oauth_authorization_not_found")
            try await server.request(.GET, "/oauth/authorizations/nope", bearer: owner.accessToken).expectError(404, "oauth_authorization_not_found")
            #expect(try await server.request(.GET, "/oauth/authorizations/\(id)").status == 401)
        }
    }

    @Test("an authorization and its code expire together")
    func expiry() async throws {
        let clock = ManualServerClock()
        try await OAuthFlowHarness.with(clock: clock) { harness in
            let client = try await harness.client()
            let user = try await harness.server.signUp("late@example.com")
            let id = try harness.authorizationID(try await harness.authorize(client))
            clock.advance(by: 601)
            try await harness.server.request(.GET, "/oauth/authorizations/\(id)", bearer: user.accessToken)
                .expectError(404, "oauth_authorization_not_found")

            let pkce = OAuthFlowHarness.PKCE()
            let session = try await harness.server.signUp("later@example.com")
            let code = try await harness.code(client, for: session, pkce: pkce)
            clock.advance(by: 601)
            let expired = try await harness.redeem(client, code: code, verifier: pkce.verifier)
            #expect(expired["error"] as? String == "invalid_grant" && expired["error_description"] as? String == "Authorization code has expired")
        }
    }

    @Test("authorization requests are counted per IP: past the limit nothing more is stored, until the window passes")
    func authorizationRateLimit() async throws {
        let clock = ManualServerClock()
        try await OAuthFlowHarness.with(clock: clock, configure: { $0.rateLimits.oauthAuthorizationsPerIP.count = 3 }) { harness in
            let client = try await harness.client()
            for _ in 0..<3 { _ = try harness.authorizationID(try await harness.authorize(client)) }
            let refused = try await harness.authorize(client)
            refused.expectError(429, "over_request_rate_limit")
            #expect(refused.headers.first(name: "Location") == nil)
            let unknown = try await harness.authorize(OAuthFlowHarness.Client(id: UUID().uuidString, secret: nil))
            #expect(unknown.status == 429, "counted before the client is looked up")
            clock.advance(by: 301)
            _ = try harness.authorizationID(try await harness.authorize(client))
        }
    }

    @Test("a client may use only the grant types it registered")
    func grantTypes() async throws {
        try await OAuthFlowHarness.with { harness in
            let created = try await harness.server.request(
                .POST, "/admin/oauth/clients",
                json: ["redirect_uris": [OAuthFlowHarness.redirect], "client_name": "Codes only", "grant_types": ["authorization_code"]],
                bearer: harness.server.server.serviceRoleKey)
            let client = OAuthFlowHarness.Client(id: try #require(created["client_id"] as? String), secret: created["client_secret"] as? String)
            let refused = try await harness.refresh(client, "whatever-token-value")
            #expect(refused.status == 400 && refused["error"] as? String == "unsupported_grant_type")
            let unknown = try await harness.server.request(.POST, "/oauth/token", form: ["grant_type": "password"], headers: client.basic)
            #expect(unknown["error"] as? String == "unsupported_grant_type")
        }
    }

    @Test("an app's token reads the user but cannot change the account, its factors, passkeys or identities, allow apps, or touch grants")
    func appTokensStayInTheirLane() async throws {
        try await OAuthFlowHarness.with(configure: { $0.passkeys.enabled = true }) { harness in
            let server = harness.server
            let client = try await harness.client()
            let user = try await server.signUp("lane@example.com")
            let pkce = OAuthFlowHarness.PKCE()
            let code = try await harness.code(client, for: user, pkce: pkce, ["scope": "email"])
            let appToken = try #require(try await harness.redeem(client, code: code, verifier: pkce.verifier)["access_token"] as? String)

            #expect(try await server.request(.GET, "/user", bearer: appToken).status == 200)
            #expect(try await server.request(.GET, "/oauth/userinfo", bearer: appToken).status == 200)
            let pending = try harness.authorizationID(try await harness.authorize(client, ["scope": "email phone"]))
            let refused: [(HTTPMethod, String, [String: any Sendable]?)] = [
                (.PUT, "/user", ["password": "taken over by the app"]), (.PUT, "/user", ["email": "app@example.com"]),
                (.DELETE, "/user", [:]), (.GET, "/reauthenticate", nil), (.POST, "/factors", ["factor_type": "totp"]),
                (.GET, "/user/identities/authorize?provider=github", nil), (.POST, "/passkeys/registration/options", [:]),
                (.GET, "/user/oauth/grants", nil), (.DELETE, "/user/oauth/grants?client_id=\(client.id)", nil),
                (.GET, "/oauth/authorizations/\(pending)", nil),
                (.POST, "/oauth/authorizations/\(pending)/consent", ["action": "approve"]),
            ]
            for (method, path, body) in refused {
                try await server.request(method, path, json: body, bearer: appToken).expectError(403, "insufficient_permissions")
            }
            // The user's own token still does all of it.
            #expect(try await server.request(.GET, "/user/oauth/grants", bearer: user.accessToken).jsonArray?.count == 1)
            #expect(try await server.request(.GET, "/oauth/authorizations/\(pending)", bearer: user.accessToken).status == 200)
            #expect(try await server.signIn("lane@example.com").status == 200, "the password is unchanged")
        }
    }
}
