import Foundation
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// The client against a server with CAPTCHA protection on (its siteverify a local stand-in):
/// the token the app passes reaches the server on each protected call, and a call without one
/// is refused with words that ask for the check again.
@Suite("End to end: CAPTCHA tokens")
struct CaptchaFlowTests {
    static func protected(_ fake: FakeSiteverify) -> @Sendable (inout ServerConfiguration) -> Void {
        let url = fake.url
        return { configuration in
            configuration.captcha.enabled = true
            configuration.captcha.provider = "hcaptcha"
            configuration.captcha.secret = FakeSiteverify.secret
            configuration.captcha.siteverifyURLOverride = url
            configuration.external.allowLoopbackProviders = true
        }
    }

    @Test("sign-up, sign-in, recovery and sign-in emails carry the app's token; without one: captcha_failed, 'Verification Needed'")
    func tokensReachTheServer() async throws {
        try await FakeSiteverify.start().serving { fake in
            try await withTestServer(configure: Self.protected(fake)) { server in
                let manager = E2EApp(server: server).launch()
                await manager.restore()
                do {
                    _ = try await manager.account.signUp(email: "human@example.com", password: "correct horse battery")
                    Issue.record("a sign-up without a token must be refused")
                } catch let failure as AuthFailure {
                    #expect(failure.code == "captcha_failed" && failure.category == .invalidInput, "\(failure)")
                    #expect(failure.presentation.title == "Verification Needed" && failure.presentation.action == .retry)
                }

                let signUpToken = fake.solve()
                _ = try await manager.account.signUp(email: "human@example.com", password: "correct horse battery", captchaToken: signUpToken)
                #expect(fake.forms.last?["response"] == signUpToken)
                await manager.signOut()

                let signInToken = fake.solve()
                try await manager.account.signIn(email: "human@example.com", password: "correct horse battery", captchaToken: signInToken)
                #expect(fake.forms.last?["response"] == signInToken)
                #expect(await manager.state.isSignedIn)

                let recoveryToken = fake.solve()
                try await manager.email.recoverPassword(email: "human@example.com", captchaToken: recoveryToken)
                #expect(fake.forms.last?["response"] == recoveryToken)
                let emailToken = fake.solve()
                try await manager.email.sendSignInEmail(email: "human@example.com", captchaToken: emailToken)
                #expect(fake.forms.last?["response"] == emailToken)

                // A refresh is never asked for a token, and a used one is not sent again.
                let asked = fake.forms.count
                _ = try await manager.refresh()
                #expect(fake.forms.count == asked)
            }
        }
    }
}
