import Foundation
import Hummingbird
import LatchkeyTestSupport
import LatchkeyTesting
import NIOConcurrencyHelpers
import Testing

@testable import LatchkeyServer

/// CAPTCHA protection (GoTrue's `GOTRUE_SECURITY_CAPTCHA_*`) against a stand-in siteverify:
/// the guarded routes need a token the provider accepts, once; the others, refreshes among
/// them, never wait for the provider; an administrator's key skips it.
@Suite("CAPTCHA protection")
struct CaptchaTests {
    static func protected(_ fake: FakeSiteverify, provider: String = "hcaptcha") -> @Sendable (inout ServerConfiguration) -> Void {
        let url = fake.url
        return { configuration in
            configuration.captcha.enabled = true
            configuration.captcha.provider = provider
            configuration.captcha.secret = FakeSiteverify.secret
            configuration.captcha.siteverifyURLOverride = url
            configuration.external.allowLoopbackProviders = true
        }
    }

    static func security(_ token: String) -> [String: any Sendable] { ["captcha_token": token] }

    @Test("sign-up and password sign-in need a solved token; none, a made-up one and a replayed one are captcha_failed")
    func guardsSignUpAndSignIn() async throws {
        try await FakeSiteverify.start().serving { fake in
            try await TestServer.with(configure: Self.protected(fake)) { server in
                let body: [String: any Sendable] = ["email": "human@example.com", "password": "correct horse battery"]
                let none = try await server.request(.POST, "/signup", json: body)
                #expect(none.status == 400 && none.errorCode == "captcha_failed", "\(none.text)")
                #expect((none["msg"] as? String)?.contains("no captcha_token found") == true)
                var madeUp = body
                madeUp["gotrue_meta_security"] = Self.security("P1_made-up")
                let refused = try await server.request(.POST, "/signup", json: madeUp)
                #expect(
                    refused.status == 400 && refused.errorCode == "captcha_failed"
                        && (refused["msg"] as? String)?.contains("already-seen-response") == true)

                var solved = body
                let token = fake.solve()
                solved["gotrue_meta_security"] = Self.security(token)
                let signedUp = try await server.request(.POST, "/signup", json: solved)
                #expect(signedUp.status == 200, "\(signedUp.text)")
                #expect(fake.forms.last == ["secret": FakeSiteverify.secret, "response": token, "remoteip": "127.0.0.1"])

                // The same token again (a replay): the provider refuses it, so the server does.
                let replay = try await server.request(.POST, "/token?grant_type=password", json: solved)
                #expect(replay.status == 400 && replay.errorCode == "captcha_failed", "\(replay.text)")
                var signIn = body
                signIn["gotrue_meta_security"] = Self.security(fake.solve())
                let session = try #require(TestSession(try await server.request(.POST, "/token?grant_type=password", json: signIn)))

                // A refresh never waits for a provider; nor does a signed-in user's request.
                let before = fake.forms.count
                let refreshed = try await server.request(.POST, "/token?grant_type=refresh_token", json: ["refresh_token": session.refreshToken])
                #expect(refreshed.status == 200 && fake.forms.count == before, "\(refreshed.text)")
                #expect(try await server.request(.GET, "/user", bearer: session.accessToken).status == 200)
            }
        }
    }

    @Test("the mail-sending routes are guarded too; an administrator's key is not asked")
    func guardsMailRoutes() async throws {
        try await FakeSiteverify.start().serving { fake in
            try await TestServer.with(configure: Self.protected(fake, provider: "turnstile")) { server in
                for path in ["/otp", "/magiclink", "/recover", "/resend"] {
                    var body: [String: any Sendable] = ["email": "mail@example.com"]
                    if path == "/resend" { body["type"] = "signup" }
                    let refused = try await server.request(.POST, path, json: body)
                    #expect(refused.status == 400 && refused.errorCode == "captcha_failed", "\(path): \(refused.text)")
                    body["gotrue_meta_security"] = Self.security(fake.solve())
                    let passed = try await server.request(.POST, path, json: body)
                    #expect(passed.errorCode != "captcha_failed", "\(path): \(passed.text)")
                }
                let before = fake.forms.count
                let admin = try await server.request(
                    .POST, "/signup", json: ["email": "made-by-admin@example.com", "password": "correct horse battery"],
                    bearer: server.server.serviceRoleKey)
                #expect(admin.status == 200 && fake.forms.count == before, "\(admin.text)")
            }
        }
    }

    @Test("a provider that cannot be asked is a 500 and serves nothing; the server refuses to start without a secret or with another provider")
    func providerDownAndSettings() async throws {
        try await FakeSiteverify.start().serving { fake in
            fake.setFailing(true)
            try await TestServer.with(configure: Self.protected(fake)) { server in
                let down = try await server.request(
                    .POST, "/signup",
                    json: ["email": "down@example.com", "password": "correct horse battery", "gotrue_meta_security": Self.security(fake.solve())])
                #expect(down.status == 500 && (down["msg"] as? String) == "captcha verification process failed", "\(down.text)")
            }
            var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
            configuration.captcha.enabled = true
            #expect((#expect(throws: ConfigurationError.self) { try configuration.validate() })?.description.contains("CAPTCHA_SECRET") == true)
            configuration.captcha.secret = "x"
            configuration.captcha.provider = "recaptcha"
            #expect((#expect(throws: ConfigurationError.self) { try configuration.validate() })?.description.contains("--captcha-provider") == true)
        }
    }
}
