import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// Settings GoTrue starts with (its `GlobalConfiguration.Validate()` does not refuse them) but
/// that leave a feature unusable: Latchkey starts too, warns, and the feature fails at use with
/// GoTrue's answer.
@Suite("Starts where GoTrue starts")
struct StartsLikeGoTrueTests {
    /// docker compose turns `${GOTRUE_SMS_TWILIO_…}` into empty strings when they are unset.
    static func twilioWithoutCredentials(_ configuration: inout ServerConfiguration) {
        configuration.phone.enabled = true
        configuration.phone.provider = "twilio"
        configuration.phone.twilioAccountSID = ""
        configuration.phone.twilioAuthToken = ""
        configuration.phone.twilioMessageServiceSID = ""
    }

    @Test(
        "twilio without credentials: validate passes, a warning names the settings, every send is GoTrue's 500 and a test number still gets its code")
    func smsProviderWithoutCredentials() async throws {
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
        Self.twilioWithoutCredentials(&configuration)
        try configuration.validate()
        let warning = try #require(configuration.warnings().first { $0.contains("SMS") })
        for name in ["--sms-provider", "--sms-twilio-account-sid", "GOTRUE_SMS_TWILIO_AUTH_TOKEN", "--sms-twilio-message-service-sid"] {
            #expect(warning.contains(name), "\(name) in \(warning)")
        }
        #expect(warning.contains("missing Twilio account SID") && warning.contains("Unable to get SMS provider"), "\(warning)")

        try await TestServer.with(configure: {
            Self.twilioWithoutCredentials(&$0)
            $0.phone.testCodes = "15555550199:123456"
        }) { server in
            let sent = try await server.request(.POST, "/otp", json: ["phone": "+15555550123"])
            #expect(sent.status == 500 && sent.errorCode == "unexpected_failure", "\(sent.text)")
            #expect(sent["msg"] as? String == "Unable to get SMS provider")
            // A second try is not held back by the first (nothing was sent).
            #expect(try await server.request(.POST, "/otp", json: ["phone": "+15555550123"]).status == 500)
            let test = try await server.request(.POST, "/otp", json: ["phone": "+15555550199"])
            #expect(test.status == 200, "\(test.text)")
            let verified = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550199", "token": "123456"])
            #expect(verified.status == 200, "\(verified.text)")
        }
    }

    @Test("an unknown SMS provider starts with a warning and fails each send as GoTrue's")
    func unknownSMSProvider() async throws {
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
        configuration.phone.enabled = true
        configuration.phone.provider = "carrier-pigeon"
        try configuration.validate()
        #expect(configuration.warnings().contains { $0.contains("sms Provider carrier-pigeon could not be found") })
        try await TestServer.with(configure: {
            $0.phone.enabled = true
            $0.phone.provider = "carrier-pigeon"
        }) { server in
            let sent = try await server.request(.POST, "/otp", json: ["phone": "+15555550123"])
            #expect(sent.status == 500 && sent["msg"] as? String == "Unable to get SMS provider", "\(sent.text)")
        }
    }

    @Test("WebAuthn factors without a relying party: enrolment works, challenges fail with GoTrue's 500")
    func webAuthnFactorsWithoutRelyingParty() async throws {
        try await TestServer.with(configure: {
            $0.mfa.webAuthnEnrollEnabled = true
            $0.mfa.webAuthnVerifyEnabled = true
        }) { server in
            let session = try await server.signUp("webauthn-no-rp@example.com")
            let factorID = try await WebAuthnFactorTests.enroll(server, session.accessToken)
            let challenge = try await server.request(.POST, "/factors/\(factorID)/challenge", json: [:], bearer: session.accessToken)
            #expect(challenge.status == 500 && challenge.errorCode == "unexpected_failure", "\(challenge.text)")
            let verify = try await WebAuthnFactorTests.verify(
                server, session.accessToken, factorID, challenge: UUID().uuidString, response: ["id": "x"])
            #expect(verify.status == 500 && verify.errorCode == "unexpected_failure", "\(verify.text)")
            // TOTP is unaffected.
            let totp = try await server.request(.POST, "/factors", json: ["factor_type": "totp"], bearer: session.accessToken)
            #expect(totp.status == 200, "\(totp.text)")
        }
    }

    @Test("passkeys without a relying party: the ceremonies fail with GoTrue's 500 \"Failed to initialize WebAuthn\"")
    func passkeysWithoutRelyingParty() async throws {
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
        configuration.passkeys.enabled = true
        try configuration.validate()
        #expect(configuration.warnings().contains { $0.contains("passkey registration and sign-in fail") })
        try await TestServer.with(configure: { $0.passkeys.enabled = true }) { server in
            let options = try await server.request(.POST, "/passkeys/authentication/options", json: [:])
            #expect(options.status == 500 && options["msg"] as? String == "Failed to initialize WebAuthn", "\(options.text)")
            let session = try await server.signUp("passkey-no-rp@example.com")
            let registration = try await server.request(.POST, "/passkeys/registration/options", json: [:], bearer: session.accessToken)
            #expect(registration.status == 500 && registration["msg"] as? String == "Failed to initialize WebAuthn", "\(registration.text)")
            // Listing needs no relying party.
            #expect(try await server.request(.GET, "/passkeys", bearer: session.accessToken).status == 200)
        }
    }

    @Test("the log at start carries the warnings")
    func warningsAreLogged() async throws {
        let capture = LogCapture()
        try await TestServer.with(logger: capture.logger, configure: Self.twilioWithoutCredentials) { _ in }
        #expect(capture.lines.contains { $0.contains("--sms-twilio-account-sid") && $0.contains("Unable to get SMS provider") })
    }

    @Test("Keycloak enabled without its URL starts with a warning; sign-in answers GoTrue's errors")
    func keycloakWithoutURL() async throws {
        let keycloak = ProviderSettings(enabled: true, clientIDs: ["latchkey"], secret: "keycloak-secret")
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
        configuration.external.keycloak = keycloak
        try configuration.validate()
        #expect(configuration.warnings().contains { $0.contains("GOTRUE_EXTERNAL_KEYCLOAK_URL") && $0.contains("unable to find URL") })
        try await TestServer.with(configure: { $0.external.keycloak = keycloak }) { server in
            let authorize = try await server.request(.GET, "/authorize?provider=keycloak")
            #expect(authorize.status == 400 && authorize.errorCode == "validation_failed", "\(authorize.text)")
            #expect(authorize["msg"] as? String == "Unsupported provider: unable to find URL for the Keycloak provider")
            let idToken = try await server.request(
                .POST, "/token?grant_type=id_token", json: ["provider": "keycloak", "id_token": "eyJhbGciOiJSUzI1NiJ9.e30.c2ln"])
            #expect(idToken.status == 500 && idToken.errorCode == "unexpected_failure", "\(idToken.text)")
        }
    }

    @Test("Apple enabled without the Sign in with Apple key starts with a warning that Apple tokens are not revoked at account deletion")
    func appleWithoutKeyRevokesNothing() throws {
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
        #expect(!configuration.warnings().contains { $0.contains("revoke") }, "no warning while Apple is off")
        configuration.external.apple = ProviderSettings(enabled: true, clientIDs: ["com.example.services"])
        try configuration.validate()
        let warning = try #require(configuration.warnings().first { $0.contains("GOTRUE_EXTERNAL_APPLE_ENABLED") })
        #expect(warning.contains("does not revoke") && warning.contains("LATCHKEY_EXTERNAL_APPLE_PRIVATE_KEY_FILE"), "\(warning)")
    }

    @Test("LATCHKEY_EXTERNAL_APPLE_API_URL over http is refused off loopback, and on loopback without --allow-loopback-providers")
    func appleAPIURLMustBeHTTPS() throws {
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
        configuration.external.appleAPIURL = "http://appleid.example.com"
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.external.appleAPIURL = "http://127.0.0.1:8080"
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.external.allowLoopbackProviders = true
        try configuration.validate()
        configuration.external.appleAPIURL = "https://appleid.apple.com"
        try configuration.validate()
    }

    @Test("an incomplete or unreadable Sign in with Apple key starts with a warning; browser sign-in without a secret answers GoTrue's error")
    func appleKeyIncomplete() async throws {
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
        configuration.external.apple = ProviderSettings(enabled: true, clientIDs: ["com.example.services"])
        configuration.external.appleTeamID = "TEAM123456"
        try configuration.validate()
        let incomplete = try #require(configuration.warnings().first { $0.contains("Sign in with Apple key") })
        #expect(
            incomplete.contains("LATCHKEY_EXTERNAL_APPLE_KEY_ID") && incomplete.contains("LATCHKEY_EXTERNAL_APPLE_PRIVATE_KEY_FILE"), "\(incomplete)")
        #expect(!incomplete.contains("LATCHKEY_EXTERNAL_APPLE_TEAM_ID"), "\(incomplete)")

        configuration.external.appleKeyID = "KEY1234567"
        configuration.external.applePrivateKeyFile = "/nonexistent/\(UUID().uuidString).p8"
        try configuration.validate()
        #expect(configuration.warnings().contains { $0.contains("cannot be read") && $0.contains("missing OAuth secret for apple") })

        let unreadable = configuration.external
        try await TestServer.with(configure: { $0.external = unreadable }) { server in
            let authorize = try await server.request(.GET, "/authorize?provider=apple")
            #expect(authorize.status == 400 && authorize.errorCode == "validation_failed", "\(authorize.text)")
            #expect(authorize["msg"] as? String == "Unsupported provider: missing OAuth secret for apple")
        }
    }

    @Test("a hook enabled without its URI starts with a warning; each call answers GoTrue's 500")
    func hookWithoutURI() async throws {
        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
        configuration.hooks.sendSMS.enabled = true
        configuration.hooks.beforeUserCreated.enabled = true
        configuration.hooks.beforeUserCreated.uri = ""
        try configuration.validate()
        let warnings = configuration.warnings()
        #expect(warnings.contains { $0.contains("GOTRUE_HOOK_SEND_SMS_URI") && $0.contains("every SMS") })
        #expect(warnings.contains { $0.contains("GOTRUE_HOOK_BEFORE_USER_CREATED_URI") && $0.contains("every sign-up") })
        #expect(!warnings.contains { $0.contains("GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_URI") })

        try await TestServer.with(configure: { $0.hooks.beforeUserCreated.enabled = true }) { server in
            let signUp = try await server.request(.POST, "/signup", json: ["email": "hook-no-uri@example.com", "password": "correct horse battery"])
            #expect(signUp.status == 500 && signUp.errorCode == "unexpected_failure", "\(signUp.text)")
            let signIn = try await server.request(
                .POST, "/token?grant_type=password", json: ["email": "hook-no-uri@example.com", "password": "correct horse battery"])
            #expect(signIn.status == 400, "nothing was stored: \(signIn.text)")
        }
    }
}
