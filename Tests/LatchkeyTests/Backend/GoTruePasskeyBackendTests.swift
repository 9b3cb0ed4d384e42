import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// The passkey routes as the contract and GoTrue's `internal/api/passkey_*.go` put them on the
/// wire, against a recording transport.
@Suite("GoTrue wire format: passkeys")
struct GoTruePasskeyBackendTests {
    static let base = URL(string: "https://project.example.co/auth/v1")!

    func makeBackend(_ body: String, status: Int = 200) -> (GoTrueBackend, RecordingTransport) {
        let transport = RecordingTransport(HTTPResponse(status: status, body: Data(body.utf8)))
        return (GoTrueBackend(configuration: .init(baseURL: Self.base, apiKey: "anon-key"), transport: transport), transport)
    }

    func json(_ request: HTTPRequest) throws -> [String: Any] {
        let body = try #require(request.body)
        return try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
    }

    static let userID = "0b2a7c1e-4f6d-4e57-9a51-2f0c3d8e9b10"
    /// The user id's UTF-8 bytes in base64url, as the server sends the user handle.
    static let userHandle = Data(userID.utf8).base64EncodedString().replacingOccurrences(of: "+", with: "-")
        .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")

    @Test("Registration options: POST {} with the user's token; every field read, binary fields decoded, timeout in seconds")
    func registrationOptions() async throws {
        let userHandle = Self.userHandle
        let (backend, transport) = makeBackend(
            #"""
            {"challenge_id":"c-1","expires_at":1700000300,"options":{
              "rp":{"name":"Example","id":"example.com"},
              "user":{"name":"ada@example.com","displayName":"Ada","id":"\#(userHandle)"},
              "challenge":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8",
              "pubKeyCredParams":[{"type":"public-key","alg":-7},{"type":"public-key","alg":-8},{"type":"public-key","alg":-257}],
              "timeout":300000,"excludeCredentials":[{"type":"public-key","id":"AQID"}],
              "authenticatorSelection":{"residentKey":"required","requireResidentKey":true,"userVerification":"preferred"},
              "attestation":"none"}}
            """#)
        let challenge = try await backend.passkeyRegistrationOptions(accessToken: "user-jwt")
        #expect(challenge.id == "c-1")
        #expect(challenge.expiresAt == Date(timeIntervalSince1970: 1_700_000_300))
        let options = challenge.options
        #expect(options.relyingParty == .init(id: "example.com", name: "Example"))
        #expect(options.user == .init(id: Data(Self.userID.utf8), name: "ada@example.com", displayName: "Ada"))
        #expect(options.challenge == Data(0..<32))
        #expect(options.algorithms == [-7, -8, -257])
        #expect(options.timeout == 300)
        #expect(options.excludedCredentialIDs == [Data([1, 2, 3])])
        #expect(options.userVerification == .preferred)
        #expect(options.requiresResidentKey)
        #expect(options.attestation == "none")
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://project.example.co/auth/v1/passkeys/registration/options")
        #expect(request.headers["Authorization"] == "Bearer user-jwt")
        #expect(request.headers["apikey"] == "anon-key")
        #expect(try json(request).isEmpty)
    }

    @Test("Options without a relying party id, or with a challenge that is not base64url, are an invalid response")
    func badOptions() async throws {
        let (noRP, _) = makeBackend(#"{"challenge_id":"c","options":{"rp":{"name":"x"},"user":{"id":"AA"},"challenge":"AAAA"}}"#)
        await #expect(throws: BackendError.self) { try await noRP.passkeyRegistrationOptions(accessToken: "t") }
        let (badChallenge, _) = makeBackend(#"{"challenge_id":"c","options":{"challenge":"a+b/","rpId":"example.com"}}"#)
        await #expect(throws: BackendError.self) { try await badChallenge.passkeySignInOptions() }
    }

    @Test("Registration verify: challenge_id and the credential as WebAuthn JSON (id = rawId, base64url, transports); the item read")
    func registrationVerify() async throws {
        let (backend, transport) = makeBackend(#"{"id":"p-1","friendly_name":"Passkey","created_at":"2026-11-26T10:00:00Z"}"#)
        let registration = PasskeyRegistration(
            credentialID: Data([0xfb, 0xff, 0x01]), clientDataJSON: Data("{}".utf8), attestationObject: Data([0xa0]),
            transports: ["internal", "hybrid"], attachment: "platform")
        let passkey = try await backend.verifyPasskeyRegistration(accessToken: "user-jwt", challengeID: "c-1", registration: registration)
        #expect(passkey.id == "p-1")
        #expect(passkey.friendlyName == "Passkey")
        #expect(passkey.createdAt == Date(timeIntervalSince1970: 1_795_687_200))
        #expect(passkey.lastUsedAt == nil)
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.url.path == "/auth/v1/passkeys/registration/verify")
        #expect(request.headers["Authorization"] == "Bearer user-jwt")
        let body = try json(request)
        #expect(body["challenge_id"] as? String == "c-1")
        let credential = try #require(body["credential"] as? [String: Any])
        #expect(credential["id"] as? String == "-_8B")
        #expect(credential["rawId"] as? String == "-_8B")
        #expect(credential["type"] as? String == "public-key")
        #expect(credential["authenticatorAttachment"] as? String == "platform")
        let response = try #require(credential["response"] as? [String: Any])
        #expect(response["clientDataJSON"] as? String == "e30")
        #expect(response["attestationObject"] as? String == "oA")
        #expect(response["transports"] as? [String] == ["internal", "hybrid"])
    }

    @Test("Sign-in options: POST {} with the anon key only; the rpId, challenge and allowCredentials read")
    func signInOptions() async throws {
        let (backend, transport) = makeBackend(
            #"{"challenge_id":"c-2","expires_at":1700000300,"options":{"challenge":"CQkJ","timeout":60000,"rpId":"example.com","userVerification":"required"}}"#
        )
        let challenge = try await backend.passkeySignInOptions()
        #expect(challenge.id == "c-2")
        #expect(challenge.options.relyingPartyID == "example.com")
        #expect(challenge.options.challenge == Data([9, 9, 9]))
        #expect(challenge.options.timeout == 60)
        #expect(challenge.options.allowedCredentialIDs.isEmpty)
        #expect(challenge.options.userVerification == .required)
        #expect(challenge.options.mediation == .modal)
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.url.path == "/auth/v1/passkeys/authentication/options")
        #expect(request.headers["Authorization"] == "Bearer anon-key")
    }

    @Test("Sign-in verify: the assertion as WebAuthn JSON, userHandle included; the answer is the session")
    func signInVerify() async throws {
        let (backend, transport) = makeBackend(SessionDecodingTests.goTrueSession)
        let assertion = PasskeyAssertion(
            credentialID: Data([1, 2, 3]), clientDataJSON: Data("{}".utf8), authenticatorData: Data([0, 1]), signature: Data([0x30]),
            userHandle: Data(Self.userID.utf8))
        let session = try await backend.verifyPasskeySignIn(challengeID: "c-2", assertion: assertion)
        #expect(session.refreshToken == "r3fr3sh-s3cr3t")
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.url.path == "/auth/v1/passkeys/authentication/verify")
        let body = try json(request)
        #expect(body["challenge_id"] as? String == "c-2")
        let credential = try #require(body["credential"] as? [String: Any])
        #expect(credential["id"] as? String == "AQID")
        let response = try #require(credential["response"] as? [String: Any])
        #expect(response["authenticatorData"] as? String == "AAE")
        #expect(response["signature"] as? String == "MA")
        #expect(response["userHandle"] as? String == Self.userHandle)
    }

    @Test("List, rename and delete: GET /passkeys, PATCH and DELETE /passkeys/{id} with the user's token")
    func manage() async throws {
        let (lister, listed) = makeBackend(
            #"[{"id":"p-1","friendly_name":"Phone","created_at":"2026-11-26T10:00:00Z","last_used_at":"2026-11-26T11:00:00Z"},{"id":"p-2","created_at":"2026-11-26T12:00:00Z"}]"#
        )
        let passkeys = try await lister.listPasskeys(accessToken: "user-jwt")
        #expect(passkeys.map(\.id) == ["p-1", "p-2"])
        #expect(passkeys[0].lastUsedAt == Date(timeIntervalSince1970: 1_795_690_800))
        #expect(passkeys[1].friendlyName == "")
        #expect(listed.requests.withLock { $0.first?.method } == "GET")

        let (renamer, renamed) = makeBackend(#"{"id":"p-1","friendly_name":"Laptop","created_at":"2026-11-26T10:00:00Z"}"#)
        #expect(try await renamer.renamePasskey(accessToken: "user-jwt", passkeyID: "p-1", friendlyName: "Laptop").friendlyName == "Laptop")
        let rename = try #require(renamed.requests.withLock { $0.first })
        #expect(rename.method == "PATCH")
        #expect(rename.url.path == "/auth/v1/passkeys/p-1")
        #expect(try json(rename)["friendly_name"] as? String == "Laptop")

        let (deleter, deleted) = makeBackend("", status: 204)
        try await deleter.deletePasskey(accessToken: "user-jwt", passkeyID: "p-1")
        #expect(deleted.requests.withLock { $0.first.map { "\($0.method) \($0.url.path)" } } == "DELETE /auth/v1/passkeys/p-1")
        await #expect(throws: BackendError.server(status: 404, code: "validation_failed", message: "not an identifier", retryAfter: nil)) {
            try await deleter.deletePasskey(accessToken: "t", passkeyID: "../user")
        }
    }

    @Test(
        "The contract's errors map onto the taxonomy with their own words",
        arguments: [
            (404, "passkey_disabled", AuthFailure.Category.permission, AuthFailure.SuggestedAction.contactSupport),
            (400, "webauthn_challenge_expired", .invalidInput, .retry),
            (400, "webauthn_challenge_not_found", .invalidInput, .retry),
            (400, "webauthn_verification_failed", .invalidCredentials, .retry),
            (422, "too_many_passkeys", .permission, .editInput),
            (422, "webauthn_credential_exists", .invalidInput, .editInput),
            (403, "insufficient_aal", .permission, .verifySecondFactor),
            (429, "over_request_rate_limit", .rateLimited(retryAfter: nil), .waitAndRetry(after: nil)),
        ])
    func errors(status: Int, code: String, category: AuthFailure.Category, action: AuthFailure.SuggestedAction) async throws {
        let (backend, _) = makeBackend(#"{"code":\#(status),"error_code":"\#(code)","msg":"words"}"#, status: status)
        do {
            _ = try await backend.passkeySignInOptions()
            Issue.record("no error")
        } catch {
            let failure = AuthFailure(error)
            #expect(failure.category == category)
            #expect(failure.code == code)
            #expect(failure.presentation.action == action)
            #expect(!failure.presentation.message.contains("words"))
        }
    }

    @Test("/settings: passkeys_enabled read; absent is off")
    func settings() async throws {
        let (on, _) = makeBackend(#"{"external":{"email":true},"disable_signup":false,"mailer_autoconfirm":true,"passkeys_enabled":true}"#)
        #expect(try await on.settings().passkeysEnabled)
        let (old, _) = makeBackend(#"{"external":{"email":true},"disable_signup":false,"mailer_autoconfirm":true}"#)
        #expect(try await !old.settings().passkeysEnabled)
    }
}
