import Foundation
import LatchkeyWire
import Testing

@testable import LatchkeyServer

/// WebAuthn as a second factor, end to end against the real server with a software
/// authenticator: GoTrue's `factor_type: webauthn` on `/factors`, its `create` and `request`
/// ceremonies, and every rule a request could try to break.
@Suite("MFA (WebAuthn)")
struct WebAuthnFactorTests {
    static func enabled(_ configuration: inout ServerConfiguration) {
        configuration.mfa.webAuthnEnrollEnabled = true
        configuration.mfa.webAuthnVerifyEnabled = true
        configuration.passkeys.relyingPartyID = SoftwareAuthenticator.rpID
        configuration.passkeys.origins = [SoftwareAuthenticator.origin]
        configuration.rateLimits.mfaRequestsPerIP.count = 1000
    }

    // MARK: Helpers

    /// An authenticator for `session`'s account: its user handle is the account's, as the
    /// registration options give it.
    static func key(for session: TestSession) -> SoftwareAuthenticator {
        var key = SoftwareAuthenticator()
        key.userHandle = Array(session.userID.utf8)
        return key
    }

    static func enroll(_ server: TestServer, _ bearer: String, name: String = "key") async throws -> String {
        let response = try await server.request(.POST, "/factors", json: ["factor_type": "webauthn", "friendly_name": name], bearer: bearer)
        guard response.status == 200, let id = response["id"] as? String else { throw TestFailure("enroll: \(response.status) \(response.text)") }
        return id
    }

    /// A challenge: its id, its ceremony (`create`, `request`) and the options inside `publicKey`.
    static func challenge(
        _ server: TestServer, _ bearer: String, _ factorID: String
    ) async throws -> (id: String, type: String, options: [String: Any]) {
        let response = try await server.request(.POST, "/factors/\(factorID)/challenge", json: [:], bearer: bearer)
        let webauthn = response["webauthn"] as? [String: Any]
        guard response.status == 200, let id = response["id"] as? String, let type = webauthn?["type"] as? String,
            let options = (webauthn?["credential_options"] as? [String: Any])?["publicKey"] as? [String: Any]
        else { throw TestFailure("challenge: \(response.status) \(response.text)") }
        return (id, type, options)
    }

    static func verify(
        _ server: TestServer, _ bearer: String, _ factorID: String, challenge: String, type: String = "create", response: [String: any Sendable]
    ) async throws -> TestResponse {
        try await server.request(
            .POST, "/factors/\(factorID)/verify",
            json: ["challenge_id": challenge, "webauthn": ["type": type, "credential_response": response] as [String: any Sendable]], bearer: bearer)
    }

    /// Enrolls a WebAuthn factor held by `authenticator` in `session`: the factor and the raised session.
    static func enrollAndVerify(
        _ server: TestServer, _ session: TestSession, _ authenticator: SoftwareAuthenticator
    ) async throws -> (factorID: String, raised: TestSession) {
        let factorID = try await enroll(server, session.accessToken)
        let (challengeID, _, options) = try await challenge(server, session.accessToken, factorID)
        let registration = authenticator.register(challenge: try PasskeyRoutesTests.bytes(options["challenge"]))
        let verified = try await verify(
            server, session.accessToken, factorID, challenge: challengeID,
            response: PasskeyRoutesTests.credentialJSON(registration, id: authenticator.credentialID))
        guard verified.status == 200, let raised = TestSession(verified) else { throw TestFailure("verify: \(verified.status) \(verified.text)") }
        return (factorID, raised)
    }

    /// A fresh password session of `email` (aal1), its factor's `request` challenge answered by `make`.
    static func assert(
        _ server: TestServer, email: String, factorID: String, type: String = "request",
        _ make: ([UInt8]) -> AssertionResponse
    ) async throws -> (session: TestSession, response: TestResponse) {
        let session = try #require(TestSession(try await server.signIn(email)))
        let (challengeID, ceremony, options) = try await challenge(server, session.accessToken, factorID)
        #expect(ceremony == "request")
        let assertion = make(try PasskeyRoutesTests.bytes(options["challenge"]))
        let response = try await verify(
            server, session.accessToken, factorID, challenge: challengeID, type: type, response: PasskeyRoutesTests.credentialJSON(assertion))
        return (session, response)
    }

    // MARK: Tests

    @Test("off by default, as in GoTrue: enrolling is mfa_webauthn_enroll_not_enabled; with verification off, challenging is refused")
    func offByDefault() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("off@example.com")
            let refused = try await server.request(.POST, "/factors", json: ["factor_type": "webauthn"], bearer: session.accessToken)
            #expect(refused.status == 422 && refused.errorCode == "mfa_webauthn_enroll_not_enabled")
        }
        try await TestServer.with(configure: {
            Self.enabled(&$0)
            $0.mfa.webAuthnVerifyEnabled = false
        }) { server in
            let session = try await server.signUp("verify-off@example.com")
            let factorID = try await Self.enroll(server, session.accessToken)
            let refused = try await server.request(.POST, "/factors/\(factorID)/challenge", json: [:], bearer: session.accessToken)
            #expect(refused.status == 422 && refused.errorCode == "mfa_webauthn_verify_not_enabled")
        }
    }

    @Test("WebAuthn factors on without a relying party: the server starts (as GoTrue) with a warning naming the setting")
    func needsRelyingParty() throws {
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
        configuration.mfa.webAuthnEnrollEnabled = true
        try configuration.validate()
        let warning = try #require(configuration.warnings().first { $0.contains("WebAuthn configuration is invalid") })
        #expect(warning.contains("--webauthn-rp-id") && warning.contains("WebAuthn factor challenges"), "\(warning)")
        configuration.passkeys.relyingPartyID = "example.com"
        configuration.passkeys.origins = ["https://example.com"]
        try configuration.validate()
        #expect(configuration.warnings().isEmpty)
    }

    @Test("enroll, create, verify: aal2 with mfa/webauthn in amr; a later sign-in proves it with request and reaches aal2 again")
    func enrollAndSignIn() async throws {
        try await TestServer.with(configure: Self.enabled) { server in
            let session = try await server.signUp("key@example.com")
            let enrolled = try await server.request(
                .POST, "/factors", json: ["factor_type": "webauthn", "friendly_name": "YubiKey"], bearer: session.accessToken)
            #expect(enrolled.status == 200 && enrolled["type"] as? String == "webauthn" && enrolled["friendly_name"] as? String == "YubiKey")
            #expect(enrolled["totp"] == nil, "no secret for a WebAuthn factor")
            let factorID = try #require(enrolled["id"] as? String)

            let (challengeID, type, options) = try await Self.challenge(server, session.accessToken, factorID)
            #expect(type == "create")
            #expect((options["rp"] as? [String: Any])?["id"] as? String == "example.com")
            #expect(try PasskeyRoutesTests.bytes((options["user"] as? [String: Any])?["id"]) == Array(session.userID.utf8))
            #expect((options["authenticatorSelection"] as? [String: Any])?["residentKey"] as? String == "discouraged")
            #expect(options["excludeCredentials"] == nil && options["attestation"] as? String == "none")
            #expect(options["timeout"] as? Int == 300_000)

            let authenticator = Self.key(for: session)
            let registration = authenticator.register(challenge: try PasskeyRoutesTests.bytes(options["challenge"]))
            let verified = try await Self.verify(
                server, session.accessToken, factorID, challenge: challengeID,
                response: PasskeyRoutesTests.credentialJSON(registration, id: authenticator.credentialID))
            #expect(verified.status == 200, "\(verified.text)")
            let raised = try #require(TestSession(verified))
            #expect(try MFATests.claims(raised.accessToken)["aal"] as? String == "aal2")
            #expect(try MFATests.methods(raised.accessToken).contains("mfa/webauthn"))
            let factors = try await MFATests.factors(server, raised.accessToken)
            #expect(factors.count == 1 && factors.first?["factor_type"] as? String == "webauthn" && factors.first?["status"] as? String == "verified")

            // Signing in again: aal1, then the factor's request ceremony, allowing only its credential.
            var key = authenticator
            let (later, answer) = try await Self.assert(server, email: "key@example.com", factorID: factorID) { challenge in
                key.assert(challenge: challenge)
            }
            #expect(try MFATests.claims(later.accessToken)["aal"] as? String == "aal1")
            #expect(answer.status == 200, "\(answer.text)")
            #expect(try MFATests.claims(try #require(TestSession(answer)).accessToken)["aal"] as? String == "aal2")

            let (_, _, requestOptions) = try await Self.challenge(server, later.accessToken, factorID)
            let allowed = (requestOptions["allowCredentials"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(allowed == [Base64URL.encode(authenticator.credentialID)])
            #expect(requestOptions["rpId"] as? String == "example.com")
        }
    }

    @Test("a response that does not verify is mfa_verification_failed and spends the challenge; wrong shapes are GoTrue's 400s")
    func refusals() async throws {
        try await TestServer.with(configure: {
            Self.enabled(&$0)
            $0.rateLimits.failedMFACodesPerFactor.count = 8
        }) { server in
            let session = try await server.signUp("attack@example.com")
            var key = Self.key(for: session)
            let (factorID, _) = try await Self.enrollAndVerify(server, session, key)
            let (_, good) = try await Self.assert(server, email: "attack@example.com", factorID: factorID) { key.assert(challenge: $0) }
            #expect(good.status == 200, "the stored counter is now \(key.signCount)")
            let (stored, credentialID) = (key.signCount, key.credentialID)

            typealias Attempt = (inout SoftwareAuthenticator, [UInt8]) -> AssertionResponse
            let attacks: [(String, Attempt)] = [
                ("wrong origin", { $0.assert(challenge: $1, origin: "https://evil.example") }),
                ("wrong RP ID", { $0.assert(challenge: $1, rpID: "evil.example") }),
                ("another challenge", { a, _ in a.assert(challenge: Array(repeating: 7, count: 32)) }),
                ("a create response", { $0.assert(challenge: $1, type: "webauthn.create") }),
                ("no user presence", { $0.assert(challenge: $1, flags: 0x00) }),
                ("counter not advancing", { $0.assert(challenge: $1, signCount: stored) }),
                (
                    "another account's user handle",
                    { a, challenge in
                        a.userHandle = Array(UUID().uuidString.lowercased().utf8)
                        return a.assert(challenge: challenge)
                    }
                ),
                (
                    "another authenticator's key under the credential id",
                    { _, challenge in
                        var other = SoftwareAuthenticator()
                        var response = other.assert(challenge: challenge, signCount: stored + 100)
                        response.credentialID = credentialID
                        return response
                    }
                ),
            ]
            for (name, attack) in attacks {
                var attempt = key
                let (_, response) = try await Self.assert(server, email: "attack@example.com", factorID: factorID) { attack(&attempt, $0) }
                #expect(response.status == 422 && response.errorCode == "mfa_verification_failed", "\(name): \(response.text)")
            }
            // Each was counted against the factor: past the limit even a good response waits.
            let (_, limited) = try await Self.assert(server, email: "attack@example.com", factorID: factorID) { key.assert(challenge: $0) }
            #expect(limited.status == 429, "\(limited.text)")
        }
        try await TestServer.with(configure: Self.enabled) { server in
            let session = try await server.signUp("shapes@example.com")
            var key = Self.key(for: session)
            let (factorID, _) = try await Self.enrollAndVerify(server, session, key)
            let later = try #require(TestSession(try await server.signIn("shapes@example.com")))
            let (challengeID, _, options) = try await Self.challenge(server, later.accessToken, factorID)
            let good = PasskeyRoutesTests.credentialJSON(key.assert(challenge: try PasskeyRoutesTests.bytes(options["challenge"])))
            for (body, message) in [
                (["challenge_id": challengeID] as [String: any Sendable], "WebAuthn config required"),
                (
                    ["challenge_id": challengeID, "webauthn": ["type": "get", "credential_response": good] as [String: any Sendable]],
                    "WebAuthn type must be create or request"
                ),
                (["challenge_id": challengeID, "webauthn": ["type": "request"] as [String: any Sendable]], "credential_response required"),
                (
                    ["challenge_id": challengeID, "webauthn": ["type": "request", "credential_response": ["id": 5]] as [String: any Sendable]],
                    "Invalid credential_response"
                ),
            ] {
                let response = try await server.request(.POST, "/factors/\(factorID)/verify", json: body, bearer: later.accessToken)
                #expect(
                    response.status == 400 && response.errorCode == "validation_failed" && response["msg"] as? String == message, "\(response.text)")
            }
            let mismatched = try await Self.verify(server, later.accessToken, factorID, challenge: challengeID, type: "create", response: good)
            #expect(mismatched.status == 400 && mismatched.errorCode == "validation_failed", "a request challenge is not a registration")

            // The good response verifies once; the same challenge again is spent.
            let first = try await Self.verify(server, later.accessToken, factorID, challenge: challengeID, type: "request", response: good)
            #expect(first.status == 200, "\(first.text)")
            let replay = try await Self.verify(server, later.accessToken, factorID, challenge: challengeID, type: "request", response: good)
            #expect(replay.status == 422 && replay.errorCode == "mfa_ip_address_mismatch", "\(replay.text)")
        }
    }

    @Test("one authenticator is not enrolled twice: its passkey and factors are excluded, and a response reusing one is refused")
    func credentialsNotReused() async throws {
        try await TestServer.with(configure: {
            Self.enabled(&$0)
            PasskeyRoutesTests.enabled(&$0)
        }) { server in
            let session = try await server.signUp("twice@example.com")
            let (passkey, _) = try await PasskeyRoutesTests.register(server, session)
            let factorID = try await Self.enroll(server, session.accessToken)
            let (challengeID, _, options) = try await Self.challenge(server, session.accessToken, factorID)
            let excluded = (options["excludeCredentials"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(excluded == [Base64URL.encode(passkey.credentialID)])

            // A client that ignores the exclusion list is refused all the same.
            let registration = passkey.register(challenge: try PasskeyRoutesTests.bytes(options["challenge"]))
            let refused = try await Self.verify(
                server, session.accessToken, factorID, challenge: challengeID,
                response: PasskeyRoutesTests.credentialJSON(registration, id: passkey.credentialID))
            #expect(refused.status == 422 && refused.errorCode == "webauthn_credential_exists", "\(refused.text)")
        }
    }

    @Test("a code for a WebAuthn factor, a WebAuthn body for a TOTP factor, another user's factor: each refused")
    func crossedFactors() async throws {
        try await TestServer.with(configure: Self.enabled) { server in
            let session = try await server.signUp("crossed@example.com")
            let webAuthnID = try await Self.enroll(server, session.accessToken)
            let (challengeID, _, _) = try await Self.challenge(server, session.accessToken, webAuthnID)
            let code = try await server.request(
                .POST, "/factors/\(webAuthnID)/verify", json: ["challenge_id": challengeID, "code": "123456"], bearer: session.accessToken)
            #expect(code.status == 400 && code["msg"] as? String == "WebAuthn config required", "\(code.text)")

            let totp = try await MFATests.enroll(server, session.accessToken, name: "app")
            let totpChallenge = try await MFATests.challenge(server, session.accessToken, totp.id)
            let webAuthnBody = try await Self.verify(
                server, session.accessToken, totp.id, challenge: totpChallenge, type: "create", response: ["id": "x"])
            #expect(webAuthnBody.status == 400 && webAuthnBody["msg"] as? String == "Code needs to be non-empty", "\(webAuthnBody.text)")

            let stranger = try await server.signUp("stranger@example.com")
            let theirs = try await server.request(.POST, "/factors/\(webAuthnID)/challenge", json: [:], bearer: stranger.accessToken)
            #expect(theirs.status == 404 && theirs.errorCode == "mfa_factor_not_found")
            let verifyTheirs = try await Self.verify(
                server, stranger.accessToken, webAuthnID, challenge: challengeID, response: ["id": "x"])
            #expect(verifyTheirs.status == 404 && verifyTheirs.errorCode == "mfa_factor_not_found")
        }
    }
}
