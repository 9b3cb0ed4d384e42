import Foundation
import Latchkey
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import LatchkeyAppFlow

/// The router beyond the seeds' matrices: the check timeout, the lock route, verification by
/// code, resend and cancel, onboarding persistence, the first-sign-in hint.
@Suite("App flow: launch router", .timeLimit(.minutes(5)))
@MainActor
struct LaunchRouterTests {
    let password = "correct horse battery"

    @Test("A session check that hangs falls back to login after the timeout; a late answer is adopted")
    func checkTimeout() async throws {
        try await withFlowServer { server in
            let email = uniqueEmail()
            _ = try await server.createAccount(email: email, password: password)
            let keychain = MemoryCredentialStore()
            let first = SessionManager(backend: server.backend(), store: keychain, clock: ManualSessionClock(Date()), logger: .quiet)
            try await first.account.signIn(email: email, password: password)
            let clock = ManualSessionClock(Date())

            let hanging = HangingStore(base: keychain)
            let manager = SessionManager(backend: server.backend(), store: hanging, clock: clock, logger: .quiet)
            let router = LaunchRouter(manager: manager, clock: clock, logger: .quiet)
            let start = Task { await router.start() }
            #expect(await eventually { clock.sleeperCount >= 1 })
            clock.advance(by: 11)
            try await Task.sleep(nanoseconds: 20_000_000)
            #expect(router.route == .splash, "within the timeout: the splash, never a blank screen")
            clock.advance(by: 1)
            await start.value
            #expect(router.route == .auth(.login), "timed out: login")

            await hanging.release()
            #expect(await eventually { router.route == .main }, "the keychain answered after all")
            #expect(router.history == [.splash, .auth(.login), .main])
        }
    }

    @Test("Lock enabled: sign-in unlocks, background locks, a cold launch starts locked; unlock → main")
    func lockRoute() async throws {
        try await withFlowAccount { server, app, email, userID in
            app.preferences.set(true, forKey: "biometricUnlockEnabled")
            let launch = await app.start(onboarding: false)
            #expect(launch.router.route == .auth(.login), "nothing to lock while signed out")
            let form = launch.router.makeLoginForm()
            form.email = email
            form.password = password
            await form.submit()
            #expect(await launch.waitForRoute(.main), "signing in proves who you are")
            #expect(!launch.router.history.contains(.locked))

            launch.router.setPhase(.inactive)
            #expect(launch.router.route == .main, "inactive does not lock")
            launch.router.setPhase(.background)
            #expect(launch.router.route == .locked)
            launch.router.setPhase(.active)
            #expect(await launch.lock.unlock())
            #expect(launch.router.route == .main)
            await launch.terminate()

            let relaunch = await app.start(onboarding: false)
            #expect(relaunch.router.route == .locked, "killing the app does not bypass the lock")
            #expect(relaunch.router.history == [.splash, .locked])
            app.authenticator.script(.userCancel)
            #expect(!(await relaunch.lock.unlock()))
            #expect(relaunch.router.route == .locked)
            #expect(await relaunch.lock.unlock())
            #expect(relaunch.router.route == .main)
            await relaunch.router.signOut()
            #expect(relaunch.router.route == .auth(.login))
            #expect(!relaunch.lock.isLocked)
        }
    }

    @Test("The first sign-in offers the Face ID hint once")
    func hint() async throws {
        try await withFlowAccount { server, app, email, userID in
            let launch = await app.start(onboarding: false)
            #expect(!launch.lock.showsEnableHint)
            try await launch.manager.account.signIn(email: email, password: password)
            #expect(await launch.waitForRoute(.main))
            #expect(await eventually { launch.lock.showsEnableHint })
            #expect(await launch.lock.acceptEnableHint())
            #expect(launch.lock.isEnabled)
        }
    }

    @Test("Verify with the emailed code; resend; 'use another account' returns to login")
    func verificationActions() async throws {
        try await withFlowServer(autoconfirm: false) { server in
            let app = FlowApp(server: server)
            let launch = await app.start(onboarding: false)
            launch.router.showAuth(.signUp)
            let email = uniqueEmail()
            let form = launch.router.makeSignUpForm()
            form.email = email
            form.password = password
            await form.submit()
            #expect(launch.router.route == .verifyEmail)
            #expect(form.statusText == "Check your email (\(email)) to confirm your account.")

            await launch.router.resendVerificationEmail()
            #expect(launch.router.verificationStatus == .succeeded(.resendConfirmation))
            await launch.router.cancelVerification()
            #expect(launch.router.route == .auth(.login))
            #expect(launch.router.verificationEmail == nil)

            launch.router.awaitVerification(email: email, password: nil)
            await launch.router.verifyEmail(code: "not-a-code")
            #expect(launch.router.verificationStatus.failure != nil)
            #expect(launch.router.route == .verifyEmail)
            let token = try #require(try latestToken(in: server, for: email))
            await launch.router.verifyEmail(code: " \(token) ")
            #expect(launch.router.route == .main)
        }
    }

    @Test("Onboarding completed once is not shown again; a restored session is then trusted")
    func onboardingPersists() async throws {
        try await withFlowAccount { server, app, email, userID in
            let launch = await app.start()
            launch.router.completeOnboarding()
            try await launch.manager.account.signIn(email: email, password: password)
            #expect(await launch.waitForRoute(.main))
            await launch.terminate()
            let relaunch = await app.start()
            #expect(relaunch.router.isOnboardingCompleted)
            #expect(relaunch.router.history == [.splash, .main])
        }
    }

    /// The six-digit code of the newest email to `email`: what a user types on the verify screen.
    func latestToken(in server: TestServer, for email: String) throws -> String? {
        try server.server.emailCode(to: email)
    }
}
