import Foundation
import LatchkeyWire
import NIOHTTP1
import Testing

@testable import LatchkeyServer

/// Passkeys end to end against the real server, with a software authenticator: registering,
/// signing in without an address, managing them, and every rule a request could try to break.
@Suite("Passkeys")
struct PasskeyRoutesTests {
    static func enabled(_ configuration: inout ServerConfiguration) {
        configuration.passkeys.enabled = true
        configuration.passkeys.relyingPartyID = SoftwareAuthenticator.rpID
        configuration.passkeys.origins = [SoftwareAuthenticator.origin]
    }

    // MARK: Helpers

    static func b64(_ bytes: [UInt8]) -> String { Base64URL.encode(bytes) }
    static func bytes(_ text: Any?) throws -> [UInt8] {
        guard let text = text as? String, let data = Base64URL.decode(text) else { throw TestFailure("not base64url: \(String(describing: text))") }
        return Array(data)
    }

    /// Options, then the challenge they carry.
    static func registrationOptions(_ server: TestServer, _ bearer: String) async throws -> (id: String, challenge: [UInt8], options: [String: Any]) {
        let response = try await server.request(.POST, "/passkeys/registration/options", json: [:], bearer: bearer)
        guard response.status == 200, let id = response["challenge_id"] as? String, let options = response["options"] as? [String: Any] else {
            throw TestFailure("registration options: \(response.status) \(response.text)")
        }
        return (id, try bytes(options["challenge"]), options)
    }

    static func signInOptions(_ server: TestServer) async throws -> (id: String, challenge: [UInt8]) {
        let response = try await server.request(.POST, "/passkeys/authentication/options", json: [:])
        guard response.status == 200, let id = response["challenge_id"] as? String, let options = response["options"] as? [String: Any] else {
            throw TestFailure("authentication options: \(response.status) \(response.text)")
        }
        return (id, try bytes(options["challenge"]))
    }

    static func credentialJSON(_ registration: RegistrationResponse, id: [UInt8]) -> [String: any Sendable] {
        [
            "id": b64(id), "rawId": b64(id), "type": "public-key",
            "response": [
                "clientDataJSON": b64(registration.clientDataJSON), "attestationObject": b64(registration.attestationObject),
                "transports": registration.transports,
            ] as [String: any Sendable],
        ]
    }

    static func credentialJSON(_ assertion: AssertionResponse) -> [String: any Sendable] {
        var response: [String: any Sendable] = [
            "clientDataJSON": b64(assertion.clientDataJSON), "authenticatorData": b64(assertion.authenticatorData),
            "signature": b64(assertion.signature),
        ]
        if let handle = assertion.userHandle { response["userHandle"] = b64(handle) }
        return ["id": b64(assertion.credentialID), "rawId": b64(assertion.credentialID), "type": "public-key", "response": response]
    }

    /// An authenticator holding a passkey for `session`'s account, registered through the routes.
    static func register(_ server: TestServer, _ session: TestSession) async throws -> (SoftwareAuthenticator, [String: Any]) {
        var authenticator = SoftwareAuthenticator()
        authenticator.userHandle = Array(session.userID.utf8)
        let (id, challenge, _) = try await registrationOptions(server, session.accessToken)
        let verified = try await server.request(
            .POST, "/passkeys/registration/verify",
            json: ["challenge_id": id, "credential": credentialJSON(authenticator.register(challenge: challenge), id: authenticator.credentialID)],
            bearer: session.accessToken)
        guard verified.status == 200 else { throw TestFailure("registration verify: \(verified.status) \(verified.text)") }
        return (authenticator, verified.json)
    }

    static func signIn(_ server: TestServer, _ authenticator: inout SoftwareAuthenticator, flags: UInt8 = 0x05) async throws -> TestResponse {
        let (id, challenge) = try await signInOptions(server)
        let assertion = authenticator.assert(challenge: challenge, flags: flags)
        return try await server.request(
            .POST, "/passkeys/authentication/verify", json: ["challenge_id": id, "credential": credentialJSON(assertion)])
    }

    // MARK: Tests

    @Test("off by default: every /passkeys route is 404 passkey_disabled and /settings says so")
    func offByDefault() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("off@example.com")
            for (method, path) in [
                (HTTPMethod.POST, "/passkeys/authentication/options"), (.POST, "/passkeys/authentication/verify"),
                (.POST, "/passkeys/registration/options"), (.GET, "/passkeys"), (.DELETE, "/passkeys/\(UUID())"),
            ] {
                let response = try await server.request(method, path, json: method == .POST ? [:] : nil, bearer: session.accessToken)
                #expect(response.status == 404 && response.errorCode == "passkey_disabled", "\(path): \(response.text)")
            }
            let settings = try await server.request(.GET, "/settings")
            #expect(settings["passkeys_enabled"] as? Bool == false)
            #expect(try await server.request(.GET, "/.well-known/apple-app-site-association").status == 404)
        }
        try await TestServer.with(configure: Self.enabled) { server in
            let settings = try await server.request(.GET, "/settings")
            #expect(settings["passkeys_enabled"] as? Bool == true)
        }
    }

    @Test("register, list, sign out, sign in with the passkey (no address typed): a session with amr passkey")
    func registerAndSignIn() async throws {
        try await TestServer.with(configure: Self.enabled) { server in
            let session = try await server.signUp("passkey@example.com", data: ["name": "Pat Passkey"])
            let (id, challenge, options) = try await Self.registrationOptions(server, session.accessToken)
            #expect((options["rp"] as? [String: Any])?["id"] as? String == "example.com")
            let user = try #require(options["user"] as? [String: Any])
            #expect(try Self.bytes(user["id"]) == Array(session.userID.utf8), "the user handle is the account id, as GoTrue's")
            #expect(user["name"] as? String == "passkey@example.com" && user["displayName"] as? String == "Pat Passkey")
            #expect((options["pubKeyCredParams"] as? [[String: Any]])?.compactMap { $0["alg"] as? Int } == [-7, -8, -257])
            #expect((options["authenticatorSelection"] as? [String: Any])?["residentKey"] as? String == "required")
            #expect(options["excludeCredentials"] == nil && options["attestation"] as? String == "none")
            #expect(options["timeout"] as? Int == 300_000 && challenge.count == 32)

            var authenticator = SoftwareAuthenticator()
            authenticator.userHandle = Array(session.userID.utf8)
            let verified = try await server.request(
                .POST, "/passkeys/registration/verify",
                json: [
                    "challenge_id": id,
                    "credential": Self.credentialJSON(authenticator.register(challenge: challenge), id: authenticator.credentialID),
                ], bearer: session.accessToken)
            #expect(verified.status == 200, "\(verified.text)")
            let passkeyID = try #require(verified["id"] as? String)
            #expect(verified["friendly_name"] as? String == "Passkey" && verified["created_at"] is String)

            let listed = try #require(try await server.request(.GET, "/passkeys", bearer: session.accessToken).jsonArray)
            #expect(listed.count == 1 && listed.first?["id"] as? String == passkeyID && listed.first?["last_used_at"] == nil)
            // A second registration offers the first as excluded.
            let again = try await Self.registrationOptions(server, session.accessToken).options
            #expect((again["excludeCredentials"] as? [[String: Any]])?.first?["id"] as? String == Self.b64(authenticator.credentialID))

            #expect(try await server.request(.POST, "/logout", bearer: session.accessToken).status == 204)
            let signedIn = try await Self.signIn(server, &authenticator)
            #expect(signedIn.status == 200, "\(signedIn.text)")
            let fresh = try #require(TestSession(signedIn))
            #expect(fresh.userID == session.userID)
            #expect(try MFATests.methods(fresh.accessToken) == ["passkey"])
            #expect(try await server.request(.GET, "/user", bearer: fresh.accessToken).status == 200)
            #expect(try await server.refresh(fresh.refreshToken).status == 200, "the session renews as any other")
            let after = try #require(try await server.request(.GET, "/passkeys", bearer: fresh.accessToken).jsonArray)
            #expect(after.first?["last_used_at"] is String)
            let actions = try await server.auditActions()
            #expect(actions.contains("passkey_created") && actions.contains("login"))
        }
    }

    @Test("a challenge is spent by its first verify, right or wrong; expires; belongs to its ceremony and user")
    func challengeRules() async throws {
        try await TestServer.with(configure: Self.enabled) { server in
            let session = try await server.signUp("challenge@example.com")
            var authenticator = SoftwareAuthenticator()
            authenticator.userHandle = Array(session.userID.utf8)
            let (id, challenge, _) = try await Self.registrationOptions(server, session.accessToken)
            let credential = Self.credentialJSON(authenticator.register(challenge: challenge), id: authenticator.credentialID)
            let wrong = Self.credentialJSON(
                authenticator.register(challenge: challenge, origin: "https://evil.example"), id: authenticator.credentialID)
            let first = try await server.request(
                .POST, "/passkeys/registration/verify", json: ["challenge_id": id, "credential": wrong], bearer: session.accessToken)
            #expect(first.status == 400 && first.errorCode == "webauthn_verification_failed")
            let replay = try await server.request(
                .POST, "/passkeys/registration/verify", json: ["challenge_id": id, "credential": credential], bearer: session.accessToken)
            #expect(replay.status == 400 && replay.errorCode == "webauthn_challenge_not_found", "spent by the wrong attempt")

            // Another user's registration challenge, and a sign-in challenge, are not this one's.
            let other = try await server.signUp("other@example.com")
            let theirs = try await Self.registrationOptions(server, other.accessToken)
            let signIn = try await Self.signInOptions(server)
            for challengeID in [theirs.id, signIn.id, UUID().uuidString] {
                let response = try await server.request(
                    .POST, "/passkeys/registration/verify", json: ["challenge_id": challengeID, "credential": credential],
                    bearer: session.accessToken)
                #expect(response.errorCode == "webauthn_challenge_not_found", "\(response.text)")
            }
            let theirsStill = try await server.request(
                .POST, "/passkeys/registration/verify",
                json: [
                    "challenge_id": theirs.id,
                    "credential": Self.credentialJSON(authenticator.register(challenge: theirs.challenge), id: authenticator.credentialID),
                ],
                bearer: other.accessToken)
            #expect(theirsStill.status == 200, "another user's attempt did not spend it: \(theirsStill.text)")

            let late = try await Self.registrationOptions(server, session.accessToken)
            server.clock.advance(by: 301)
            let expired = try await server.request(
                .POST, "/passkeys/registration/verify",
                json: [
                    "challenge_id": late.id,
                    "credential": Self.credentialJSON(authenticator.register(challenge: late.challenge), id: authenticator.credentialID),
                ],
                bearer: session.accessToken)
            #expect(expired.status == 400 && expired.errorCode == "webauthn_challenge_expired")

            for (body, code) in [
                (["credential": credential] as [String: any Sendable], "validation_failed"),
                (["challenge_id": "not-a-uuid", "credential": credential], "validation_failed"),
                (["challenge_id": UUID().uuidString], "validation_failed"),
                (
                    ["challenge_id": (try await Self.registrationOptions(server, session.accessToken)).id, "credential": ["id": 5]],
                    "webauthn_verification_failed"
                ),
            ] {
                let response = try await server.request(.POST, "/passkeys/registration/verify", json: body, bearer: session.accessToken)
                #expect(response.status == 400 && response.errorCode == code, "\(response.text)")
            }
        }
    }

    @Test(
        "sign-in refusals: wrong origin, wrong RP ID, no user presence, bad signature, another account's handle, unknown credential, a replayed counter"
    )
    func signInRefusals() async throws {
        try await TestServer.with(configure: Self.enabled) { server in
            let session = try await server.signUp("refuse@example.com")
            var (authenticator, _) = try await Self.register(server, session)
            let victim = try await server.signUp("victim@example.com")

            func attempt(_ make: (inout SoftwareAuthenticator, [UInt8]) -> AssertionResponse) async throws -> TestResponse {
                let (id, challenge) = try await Self.signInOptions(server)
                let assertion = make(&authenticator, challenge)
                return try await server.request(
                    .POST, "/passkeys/authentication/verify", json: ["challenge_id": id, "credential": Self.credentialJSON(assertion)])
            }
            var cases: [(String, (inout SoftwareAuthenticator, [UInt8]) -> AssertionResponse)] = [
                ("wrong origin", { $0.assert(challenge: $1, origin: "https://evil.example") }),
                ("wrong RP ID", { $0.assert(challenge: $1, rpID: "evil.example") }),
                ("no user presence", { $0.assert(challenge: $1, flags: 0x04) }),
                ("registration type", { $0.assert(challenge: $1, type: "webauthn.create") }),
                ("another challenge", { a, _ in a.assert(challenge: Array(repeating: 7, count: 32)) }),
            ]
            cases.append(
                (
                    "bad signature",
                    { a, c in
                        var assertion = a.assert(challenge: c)
                        assertion.signature[assertion.signature.count - 1] ^= 0x01
                        return assertion
                    }
                ))
            cases.append(
                (
                    "another account's handle",
                    { a, c in
                        var assertion = a.assert(challenge: c)
                        assertion.userHandle = Array(victim.userID.utf8)
                        return assertion
                    }
                ))
            cases.append(
                (
                    "unknown credential",
                    { a, c in
                        var stranger = SoftwareAuthenticator()
                        stranger.userHandle = a.userHandle
                        return stranger.assert(challenge: c)
                    }
                ))
            for (name, make) in cases {
                let response = try await attempt(make)
                #expect(response.status == 400 && response.errorCode == "webauthn_verification_failed", "\(name): \(response.text)")
                #expect(response["access_token"] == nil)
            }
            // A good assertion signs in; its counter replayed is refused.
            #expect(try await Self.signIn(server, &authenticator).status == 200)
            let count = authenticator.signCount
            let replayed = try await attempt { a, c in a.assert(challenge: c, signCount: count) }
            #expect(replayed.status == 400 && replayed.errorCode == "webauthn_verification_failed", "a cloned authenticator")
            #expect(try await Self.signIn(server, &authenticator).status == 200, "the genuine one still works")
        }
    }

    @Test("limits: the per-user maximum, a credential registered already, anonymous users, aal2 with MFA on")
    func registrationRules() async throws {
        try await TestServer.with(configure: {
            Self.enabled(&$0)
            $0.passkeys.maximumPerUser = 1
            $0.enableAnonymousUsers = true
            MFATests.roomy(&$0)
        }) { server in
            let session = try await server.signUp("limit@example.com")
            let (authenticator, _) = try await Self.register(server, session)
            let more = try await server.request(.POST, "/passkeys/registration/options", json: [:], bearer: session.accessToken)
            #expect(more.status == 422 && more.errorCode == "too_many_passkeys")

            // The same credential offered for another account.
            let other = try await server.signUp("copy@example.com")
            let (id, challenge, _) = try await Self.registrationOptions(server, other.accessToken)
            let copied = try await server.request(
                .POST, "/passkeys/registration/verify",
                json: [
                    "challenge_id": id,
                    "credential": Self.credentialJSON(authenticator.register(challenge: challenge), id: authenticator.credentialID),
                ],
                bearer: other.accessToken)
            #expect(copied.status == 422 && copied.errorCode == "webauthn_credential_exists")

            let anonymous = try #require(TestSession(try await server.request(.POST, "/signup", json: [:])))
            let refused = try await server.request(.POST, "/passkeys/registration/options", json: [:], bearer: anonymous.accessToken)
            #expect(refused.status == 403)

            let mfa = try await server.signUp("mfa-passkey@example.com")
            let (_, raised) = try await MFATests.enrollAndVerify(server, mfa)
            let signIn = try #require(TestSession(try await server.signIn("mfa-passkey@example.com")))
            let low = try await server.request(.POST, "/passkeys/registration/options", json: [:], bearer: signIn.accessToken)
            #expect(low.status == 403 && low.errorCode == "insufficient_aal")
            #expect(try await server.request(.POST, "/passkeys/registration/options", json: [:], bearer: raised.accessToken).status == 200)
        }
    }

    @Test("rename and delete: one's own only, names checked; a deleted passkey signs no one in; admins list and delete")
    func management() async throws {
        try await TestServer.with(configure: Self.enabled) { server in
            let session = try await server.signUp("manage@example.com")
            let (registered, created) = try await Self.register(server, session)
            var authenticator = registered
            let id = try #require(created["id"] as? String)
            let other = try await server.signUp("nosy@example.com")

            let renamed = try await server.request(.PATCH, "/passkeys/\(id)", json: ["friendly_name": "Work laptop"], bearer: session.accessToken)
            #expect(renamed.status == 200 && renamed["friendly_name"] as? String == "Work laptop")
            for (name, status) in [("", 400), (String(repeating: "x", count: 121), 400)] {
                #expect(
                    try await server.request(.PATCH, "/passkeys/\(id)", json: ["friendly_name": name], bearer: session.accessToken).status == status)
            }
            #expect(try await server.request(.PATCH, "/passkeys/\(id)", json: ["friendly_name": "mine"], bearer: other.accessToken).status == 404)
            #expect(try await server.request(.DELETE, "/passkeys/\(id)", bearer: other.accessToken).status == 404)
            #expect(try await server.request(.DELETE, "/passkeys/not-a-uuid", bearer: session.accessToken).status == 404)
            #expect(try await server.request(.GET, "/passkeys", bearer: other.accessToken).jsonArray?.isEmpty == true)

            let key = server.server.serviceRoleKey
            let adminList = try await server.request(.GET, "/admin/users/\(session.userID)/passkeys", bearer: key)
            #expect(adminList.jsonArray?.first?["friendly_name"] as? String == "Work laptop")
            #expect(try await server.request(.GET, "/admin/users/\(session.userID)/passkeys", bearer: session.accessToken).status == 403)
            #expect(try await server.request(.GET, "/admin/users/\(UUID())/passkeys", bearer: key).status == 404)

            #expect(try await server.request(.DELETE, "/passkeys/\(id)", bearer: session.accessToken).status == 204)
            let gone = try await Self.signIn(server, &authenticator)
            #expect(gone.status == 400 && gone.errorCode == "webauthn_verification_failed")

            let (registeredAgain, made) = try await Self.register(server, session)
            var second = registeredAgain
            let secondID = try #require(made["id"] as? String)
            #expect(try await server.request(.DELETE, "/admin/users/\(session.userID)/passkeys/\(secondID)", bearer: key).status == 204)
            #expect(try await Self.signIn(server, &second).status == 400)
            #expect(try await server.auditActions().contains("passkey_deleted"))
        }
    }

    @Test("banned and unconfirmed accounts are refused; a deleted account's passkeys go with it")
    func accountState() async throws {
        try await TestServer.with(configure: Self.enabled) { server in
            let key = server.server.serviceRoleKey
            let session = try await server.signUp("state@example.com")
            var (authenticator, _) = try await Self.register(server, session)
            #expect(try await server.request(.PUT, "/admin/users/\(session.userID)", json: ["ban_duration": "24h"], bearer: key).status == 200)
            let banned = try await Self.signIn(server, &authenticator)
            #expect(banned.status == 403 && banned.errorCode == "user_banned")
            #expect(try await server.request(.DELETE, "/admin/users/\(session.userID)", bearer: key).status == 200)
            let deleted = try await Self.signIn(server, &authenticator)
            #expect(deleted.status == 400 && deleted.errorCode == "webauthn_verification_failed")
        }
    }

    @Test("sign-ins started per IP are limited: 429 with Retry-After")
    func rateLimited() async throws {
        try await TestServer.with(configure: {
            Self.enabled(&$0)
            $0.rateLimits.passkeySignInsPerIP.count = 3
        }) { server in
            for _ in 0..<3 { #expect(try await server.request(.POST, "/passkeys/authentication/options", json: [:]).status == 200) }
            let limited = try await server.request(.POST, "/passkeys/authentication/options", json: [:])
            #expect(limited.status == 429 && limited.headers.first(name: "Retry-After") != nil)
        }
    }

    @Test("the Apple app association lists the app IDs as webcredentials")
    func appleAppSiteAssociation() async throws {
        try await TestServer.with(configure: { $0.passkeys.appleAppIDs = ["ABCDE12345.com.example.app"] }) { server in
            let response = try await server.request(.GET, "/.well-known/apple-app-site-association")
            #expect(response.status == 200 && response.headers.first(name: "Content-Type") == "application/json")
            #expect((response["webcredentials"] as? [String: Any])?["apps"] as? [String] == ["ABCDE12345.com.example.app"])
        }
    }

    @Test("settings are checked at start: an RP ID and origins on it (a warning, as GoTrue), well-formed app IDs (refused)")
    func settingsValidation() throws {
        func check(_ change: (inout PasskeySettings) -> Void) -> String? {
            var settings = PasskeySettings()
            change(&settings)
            do {
                try settings.validate()
                return settings.enabled ? settings.relyingPartyProblem()?.description : nil
            } catch {
                return error.description
            }
        }
        #expect(check { $0.enabled = true }?.contains("--webauthn-rp-id") == true)
        #expect(
            check {
                $0.enabled = true
                $0.relyingPartyID = "example.com"
            }?.contains("--webauthn-rp-origins") == true)
        #expect(
            check {
                $0.enabled = true
                $0.relyingPartyID = "example.com"
                $0.origins = ["https://evil.example"]
            }?.contains("not on the relying party") == true)
        #expect(
            check {
                $0.enabled = true
                $0.relyingPartyID = "example.com"
                $0.origins = ["https://example.com/login"]
            } != nil)
        #expect(
            check {
                $0.enabled = true
                $0.relyingPartyID = "example.com"
                $0.origins = ["https://app.example.com", "http://example.com:8080"]
            } == nil)
        #expect(check { $0.appleAppIDs = ["com.example.app"] }?.contains("--apple-app-ids") == true)
        #expect(check { $0.maximumPerUser = 0 } != nil)
    }
}
