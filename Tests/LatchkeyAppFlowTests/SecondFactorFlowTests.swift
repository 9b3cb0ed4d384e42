import Foundation
import Latchkey
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import LatchkeyAppFlow

/// The `verifySecondFactor` route against the real server: an account with an authenticator
/// app signs in with the password, the router asks for the code, the code form finishes the
/// sign-in, and the next launch goes straight to `main`.
@Suite("App flow: second factor against the server", .timeLimit(.minutes(5)))
@MainActor
struct SecondFactorFlowTests {
    let password = "correct horse battery"

    @Test("Login → verifySecondFactor → a replayed code refused → the current code → main; relaunch → main")
    func loginWithCode() async throws {
        try await withFlowAccount { server, app, email, userID in
            // The account turns on two-step verification elsewhere (another device).
            let elsewhere = SessionManager(backend: server.backend(), store: MemoryCredentialStore(), logger: .quiet)
            try await elsewhere.account.signIn(email: email, password: password)
            let enrollment = try await elsewhere.mfa.enrollTOTP(friendlyName: "Phone")
            try await elsewhere.mfa.challengeAndVerify(
                factorID: enrollment.factorID, code: try TOTPCode.current(secret: enrollment.secret, at: server.serverClock.now()))

            let launch = await app.start(onboarding: false)
            let login = launch.router.makeLoginForm()
            login.email = email
            login.password = password
            await login.submit()
            #expect(await launch.waitForRoute(.verifySecondFactor), "\(launch.router.route)")

            let form = launch.router.makeSecondFactorForm()
            form.code = try TOTPCode.current(secret: enrollment.secret, at: server.serverClock.now())
            await form.submit()
            #expect(form.failure?.title == "Incorrect Code", "the code the other device used works once")
            #expect(launch.router.route == .verifySecondFactor)
            form.code = try TOTPCode.current(secret: enrollment.secret, at: server.serverClock.now().addingTimeInterval(30))
            await form.submit()
            #expect(form.status == .succeeded(.secondFactorVerification))
            #expect(await launch.waitForRoute(.main))
            #expect(await launch.manager.currentSession?.assurance.level == .aal2)
            await launch.terminate()

            let relaunch = await app.start(onboarding: false)
            #expect(relaunch.router.history == [.splash, .main], "the aal2 session was stored")
        }
    }
}
