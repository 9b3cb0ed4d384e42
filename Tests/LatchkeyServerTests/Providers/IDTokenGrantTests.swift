import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// `POST /token?grant_type=id_token` against a real (local) OpenID provider: accounts made,
/// found and linked as GoTrue does, and every forged or misdirected token refused with a 400.
@Suite("ID-token grant")
struct IDTokenGrantTests {
    static let clientID = "latchkey-test-app"

    /// A server with `provider` as its Keycloak provider (and as Apple's stand-in).
    static func with(
        _ algorithm: TestIdentityProvider.Algorithm = .es256, configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestServer, TestIdentityProvider) async throws -> Void
    ) async throws {
        try await TestIdentityProvider.with(algorithm: algorithm) { provider in
            try await TestServer.with(clock: ManualServerClock(Date())) { configuration in
                configuration.external.allowLoopbackProviders = true
                configuration.external.keycloak = ProviderSettings(enabled: true, clientIDs: [clientID], url: provider.issuer)
                configuration.external.apple = ProviderSettings(enabled: true, clientIDs: ["com.example.services"])
                configuration.external.iosBundleID = "com.example.app"
                // Apple's and Google's issuers are fixed; the tests reach the local stand-in instead.
                configuration.external.issuerOverrides = ["apple": provider.issuer, "google": provider.issuer]
                configuration.external.manualLinkingEnabled = true
                configure(&configuration)
            } _: { server in
                try await body(server, provider)
            }
        }
    }

    static func grant(
        _ server: TestServer, _ token: String, provider: String = "keycloak", nonce: String? = nil, bearer: String? = nil, link: Bool = false
    )
        async throws -> TestResponse
    {
        var body: [String: any Sendable] = ["provider": provider, "id_token": token]
        if let nonce { body["nonce"] = nonce }
        if link { body["link_identity"] = true }
        return try await server.request(.POST, "/token?grant_type=id_token", json: body, bearer: bearer)
    }

    @Test("a first sign-in makes an account with the identity; the next finds it", arguments: [TestIdentityProvider.Algorithm.es256, .rs256])
    func newAccount(_ algorithm: TestIdentityProvider.Algorithm) async throws {
        try await Self.with(algorithm) { server, provider in
            let token = try provider.idToken(subject: "person-1", audience: Self.clientID, email: "Ada@Example.com", issuedAt: server.clock.now())
            let first = try await Self.grant(server, token)
            #expect(first.status == 200, "\(first.text)")
            let session = try #require(TestSession(first))
            #expect(session.email == "ada@example.com")
            let user = try #require(first["user"] as? [String: Any])
            #expect(user["email_confirmed_at"] as? String != nil)
            let identities = try #require(user["identities"] as? [[String: Any]])
            #expect(identities.count == 1)
            #expect(identities.first?["provider"] as? String == "keycloak")
            #expect(identities.first?["id"] as? String == "person-1")
            #expect((user["app_metadata"] as? [String: Any])?["providers"] as? [String] == ["keycloak"])

            let again = try await Self.grant(server, try provider.idToken(subject: "person-1", audience: Self.clientID, issuedAt: server.clock.now()))
            #expect(TestSession(again)?.userID == session.userID)
            let me = try await server.request(.GET, "/user", bearer: session.accessToken)
            #expect((me["identities"] as? [[String: Any]])?.count == 1)
        }
    }

    @Test("a verified address links to the account that has it; the account keeps its password")
    func linksVerifiedAddress() async throws {
        try await Self.with(configure: { $0.autoconfirm = true }) { server, provider in
            let existing = try await server.signUp("grace@example.com")
            let token = try provider.idToken(subject: "grace-sub", audience: Self.clientID, email: "grace@example.com", issuedAt: server.clock.now())
            let response = try await Self.grant(server, token)
            #expect(TestSession(response)?.userID == existing.userID)
            let identities = try #require((response["user"] as? [String: Any])?["identities"] as? [[String: Any]])
            #expect(identities.compactMap { $0["provider"] as? String } == ["email", "keycloak"])
            #expect(try await server.signIn("grace@example.com").status == 200)
            #expect(try await server.auditActions().contains("identity_linked"))
        }
    }

    @Test("an address the provider did not verify never joins an existing account, even with autoconfirm")
    func unverifiedAddressNeverLinks() async throws {
        try await Self.with(configure: { $0.autoconfirm = true }) { server, provider in
            let existing = try await server.signUp("victim@example.com")
            let token = try provider.idToken(
                subject: "attacker", audience: Self.clientID, email: "victim@example.com", emailVerified: false, issuedAt: server.clock.now())
            let response = try await Self.grant(server, token)
            // A new account, without the address (it stays the owner's).
            let session = try #require(TestSession(response), "\(response.text)")
            #expect(session.userID != existing.userID)
            #expect(session.email == "")
            let me = try await server.request(.GET, "/user", bearer: existing.accessToken)
            #expect((me["identities"] as? [[String: Any]])?.count == 1)
            #expect(me["email"] as? String == "victim@example.com")
        }
    }

    @Test("an unconfirmed sign-up someone made with your address loses its password when you sign in with a verified provider")
    func preAccountTakeover() async throws {
        try await Self.with(configure: { $0.autoconfirm = false }) { server, provider in
            let signUp = try await server.request(.POST, "/signup", json: ["email": "owner@example.com", "password": "attacker password 1"])
            #expect(signUp.status == 200)
            let token = try provider.idToken(subject: "owner", audience: Self.clientID, email: "owner@example.com", issuedAt: server.clock.now())
            let response = try await Self.grant(server, token)
            #expect(response.status == 200, "\(response.text)")
            // The account is now confirmed by the provider: the attacker's password would work if it were kept.
            #expect(try await server.signIn("owner@example.com", "attacker password 1").errorCode == "invalid_credentials")
        }
    }

    @Test("an unverified address with no account behind it needs verification first (422)")
    func unverifiedNewAccount() async throws {
        try await Self.with(configure: { $0.autoconfirm = false }) { server, provider in
            let token = try provider.idToken(
                subject: "new", audience: Self.clientID, email: "new@example.com", emailVerified: false, issuedAt: server.clock.now())
            let response = try await Self.grant(server, token)
            #expect(response.status == 422)
            #expect(response.errorCode == "provider_email_needs_verification")
        }
    }

    @Test("Apple: the address is verified, and the app's bundle ID is an accepted audience")
    func apple() async throws {
        try await Self.with { server, provider in
            let token = try provider.idToken(
                subject: "001234.apple", audience: "com.example.app", email: "relay@privaterelay.appleid.com", issuedAt: server.clock.now(),
                claims: ["email_verified": "false", "is_private_email": true])
            let response = try await Self.grant(server, token, provider: "apple")
            #expect(response.status == 200, "\(response.text)")
            let identity = try #require(((response["user"] as? [String: Any])?["identities"] as? [[String: Any]])?.first)
            #expect(identity["provider"] as? String == "apple")
            #expect(((identity["identity_data"] as? [String: Any])?["custom_claims"] as? [String: Any])?["is_private_email"] as? Bool == true)
        }
    }

    @Test("the nonce: the token carries SHA-256 of the one sent; a wrong or missing one is refused")
    func nonce() async throws {
        try await Self.with { server, provider in
            let token = try provider.idToken(
                subject: "n", audience: Self.clientID, email: "n@example.com", nonce: "raw-nonce", issuedAt: server.clock.now())
            let wrong = try await Self.grant(server, token, nonce: "another")
            #expect(wrong.status == 400)
            #expect(wrong["error"] as? String == "invalid nonce")
            let missing = try await Self.grant(server, token)
            #expect(missing.status == 400)
            #expect(missing["error_description"] as? String == "Passed nonce and nonce in id_token should either both exist or not.")
            #expect(try await Self.grant(server, token, nonce: "raw-nonce").status == 200)
        }
    }

    @Test("forged and misdirected tokens are 400 Bad ID token (or the audience error), never a 5xx")
    func attacks() async throws {
        try await Self.with { server, provider in
            let now = server.clock.now()
            let claims: [String: Any] = [
                "iss": provider.issuer, "sub": "x", "aud": Self.clientID, "iat": Int(now.timeIntervalSince1970),
                "exp": Int(now.timeIntervalSince1970) + 600,
            ]
            let valid = try provider.sign(claims)
            let parts = valid.split(separator: ".").map(String.init)
            // alg none, and HMAC keyed with the published key.
            let none = try Self.unsigned(["alg": "none", "typ": "JWT"], claims) + "."
            let hmac = try Self.unsigned(["alg": "HS256", "kid": provider.currentKeyID], claims) + ".c2lnbmF0dXJl"
            var tampered = parts
            tampered[2] = String(tampered[2].reversed())
            let other = try await TestIdentityProvider.start()
            let strangerKey = try other.sign(claims)
            try await other.shutdown()
            let forged: [(String, String)] = [
                ("alg none", none), ("HMAC with the public key", hmac), ("tampered signature", tampered.joined(separator: ".")),
                ("unknown kid", try provider.sign(claims, header: ["kid": "nobody"])), ("another provider's key", strangerKey),
                ("wrong issuer", try provider.sign(claims.merging(["iss": "https://evil.example"]) { $1 })),
                ("expired", try provider.sign(claims.merging(["exp": Int(now.timeIntervalSince1970) - 1]) { $1 })),
                ("issued in the future", try provider.sign(claims.merging(["iat": Int(now.timeIntervalSince1970) + 3600]) { $1 })),
                ("not a JWT", "garbage"),
            ]
            for (name, token) in forged {
                let response = try await Self.grant(server, token)
                #expect(response.status == 400, "\(name): \(response.text)")
                #expect(response["error_description"] as? String == "Bad ID token", "\(name)")
            }
            let wrongAudience = try await Self.grant(server, try provider.sign(claims.merging(["aud": "someone-else"]) { $1 }))
            #expect(wrongAudience.status == 400)
            #expect((wrongAudience["error_description"] as? String)?.hasPrefix("Unacceptable audience in id_token") == true)
            let noSubject = try await Self.grant(server, try provider.sign(claims.merging(["sub": ""]) { $1 }))
            #expect(noSubject["error_description"] as? String == "Missing sub claim in id_token")
            #expect(try await server.request(.GET, "/admin/users", bearer: server.server.serviceRoleKey).json["users"] as? [Any] != nil)
        }
    }

    @Test("a rotated key is fetched once; unknown kids do not make the server refetch more than once a minute")
    func keyRotation() async throws {
        try await Self.with { server, provider in
            #expect(
                try await Self.grant(
                    server, try provider.idToken(subject: "r", audience: Self.clientID, email: "r@example.com", issuedAt: server.clock.now())
                ).status == 200)
            #expect(provider.keySetFetches == 1)
            let now = server.clock.now()
            let claims: [String: Any] = ["iss": provider.issuer, "sub": "r", "aud": Self.clientID, "exp": Int(now.timeIntervalSince1970) + 600]
            for index in 0..<5 {
                #expect(try await Self.grant(server, try provider.sign(claims, header: ["kid": "made-up-\(index)"])).status == 400)
            }
            #expect(provider.keySetFetches <= 2)
            server.clock.advance(by: 61)
            try provider.rotateKey()
            #expect(
                try await Self.grant(server, try provider.idToken(subject: "r", audience: Self.clientID, issuedAt: server.clock.now())).status == 200)
        }
    }

    @Test("a disabled or unknown provider is refused with GoTrue's errors")
    func providerChoice() async throws {
        try await Self.with(configure: { $0.external.keycloak.enabled = false }) { server, provider in
            let token = try provider.idToken(subject: "d", audience: Self.clientID, issuedAt: server.clock.now())
            #expect(try await Self.grant(server, token).errorCode == "provider_disabled")
            #expect(try await Self.grant(server, token, provider: "custom:acme").errorCode == "validation_failed")
            #expect(try await Self.grant(server, token, provider: "myspace").errorCode == "validation_failed")
            let noProvider = try await server.request(.POST, "/token?grant_type=id_token", json: ["id_token": token])
            #expect(noProvider["error_description"] as? String == "provider or client_id and issuer required")
        }
    }

    @Test("link_identity links to the signed-in user; an identity that is someone's is refused; unlinking keeps the last way in")
    func linkAndUnlink() async throws {
        try await Self.with(configure: { $0.autoconfirm = true }) { server, provider in
            let ada = try await server.signUp("ada@example.com")
            let token = try provider.idToken(subject: "ada-at-idp", audience: Self.clientID, email: "other@example.com", issuedAt: server.clock.now())
            let linked = try await Self.grant(server, token, bearer: ada.accessToken, link: true)
            #expect(linked.status == 200, "\(linked.text)")
            #expect(TestSession(linked)?.userID == ada.userID)
            let grace = try await server.signUp("grace@example.com")
            let stolen = try await Self.grant(server, token, bearer: grace.accessToken, link: true)
            #expect(stolen.status == 422)
            #expect(stolen.errorCode == "identity_already_exists")
            #expect(try await Self.grant(server, token, link: true).status == 400)

            let identities = try #require(try await server.request(.GET, "/user", bearer: ada.accessToken)["identities"] as? [[String: Any]])
            let linkedID = try #require(identities.first { $0["provider"] as? String == "keycloak" }?["identity_id"] as? String)
            #expect(
                try await server.request(.DELETE, "/user/identities/\(linkedID)", bearer: grace.accessToken).errorCode
                    == "single_identity_not_deletable")
            #expect(try await server.request(.DELETE, "/user/identities/not-a-uuid", bearer: ada.accessToken).status == 404)
            #expect(try await server.request(.DELETE, "/user/identities/\(linkedID)", bearer: ada.accessToken).status == 200)
            let after = try await server.request(.GET, "/user", bearer: ada.accessToken)
            #expect((after["identities"] as? [[String: Any]])?.count == 1)
            #expect(try await server.auditActions().contains("identity_unlinked"))
            // The identity is free again: signing in with it makes a new account.
            #expect(TestSession(try await Self.grant(server, token))?.userID != ada.userID)
        }
    }

    @Test("Google: any of its client IDs (web, iOS, Android) is an accepted audience; the hosted domain is kept")
    func googleAudiences() async throws {
        try await Self.with(configure: { configuration in
            configuration.external.google = ProviderSettings(
                enabled: true, clientIDs: ["web.apps.googleusercontent.com", "ios.apps.googleusercontent.com"])
        }) { server, provider in
            for (subject, audience) in [("g-web", "web.apps.googleusercontent.com"), ("g-ios", "ios.apps.googleusercontent.com")] {
                let token = try provider.idToken(
                    subject: subject, audience: audience, email: "\(subject)@example.com", issuedAt: server.clock.now(), claims: ["hd": "example.com"]
                )
                let response = try await Self.grant(server, token, provider: "google")
                #expect(response.status == 200, "\(audience): \(response.text)")
                let identity = try #require(((response["user"] as? [String: Any])?["identities"] as? [[String: Any]])?.first)
                #expect(identity["provider"] as? String == "google")
                let data = try #require(identity["identity_data"] as? [String: Any])
                #expect((data["custom_claims"] as? [String: Any])?["hd"] as? String == "example.com")
            }
            let foreign = try provider.idToken(subject: "g-x", audience: "someone-else.apps.googleusercontent.com", issuedAt: server.clock.now())
            #expect(try await Self.grant(server, foreign, provider: "google").status == 400)
        }
    }

    @Test("an anonymous user who links an identity becomes a permanent user with the provider's verified address")
    func anonymousBecomesPermanent() async throws {
        try await Self.with(configure: { $0.enableAnonymousUsers = true }) { server, provider in
            let anonymous = try #require(TestSession(try await server.request(.POST, "/signup", json: [:])))
            let token = try provider.idToken(
                subject: "anon-upgrade", audience: Self.clientID, email: "kept@example.com", issuedAt: server.clock.now())
            let linked = try await Self.grant(server, token, bearer: anonymous.accessToken, link: true)
            #expect(linked.status == 200, "\(linked.text)")
            let user = try #require(linked["user"] as? [String: Any])
            #expect(user["id"] as? String == anonymous.userID)
            #expect(user["is_anonymous"] as? Bool == false)
            #expect(user["email"] as? String == "kept@example.com")
        }
    }

    @Test("with manual linking off, linking and unlinking are 404 manual_linking_disabled")
    func manualLinkingOff() async throws {
        try await Self.with(configure: { $0.external.manualLinkingEnabled = false }) { server, provider in
            let session = try #require(
                TestSession(
                    try await Self.grant(
                        server, try provider.idToken(subject: "m", audience: Self.clientID, email: "m@example.com", issuedAt: server.clock.now()))))
            let token = try provider.idToken(subject: "m2", audience: Self.clientID, issuedAt: server.clock.now())
            #expect(try await Self.grant(server, token, bearer: session.accessToken, link: true).errorCode == "manual_linking_disabled")
            let identity = try #require(
                (try await server.request(.GET, "/user", bearer: session.accessToken)["identities"] as? [[String: Any]])?.first)
            let id = try #require(identity["identity_id"] as? String)
            #expect(try await server.request(.DELETE, "/user/identities/\(id)", bearer: session.accessToken).errorCode == "manual_linking_disabled")
        }
    }

    @Test("/settings reports the enabled providers")
    func settings() async throws {
        try await Self.with { server, _ in
            let external = try #require(try await server.request(.GET, "/settings")["external"] as? [String: Bool])
            #expect(external["keycloak"] == true)
            #expect(external["apple"] == true)
            #expect(external["google"] == false)
            #expect(external["email"] == true)
        }
    }

    static func unsigned(_ header: [String: String], _ claims: [String: Any]) throws -> String {
        func part(_ object: Any) throws -> String {
            try JSONSerialization.data(withJSONObject: object).base64EncodedString().replacingOccurrences(of: "+", with: "-")
                .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
        }
        return try part(header) + "." + part(claims)
    }
}
