import Foundation
import Latchkey
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import LatchkeyAppFlow

/// The `verifySecondFactor` route and its code form over ``TestBackend`` (which accepts
/// ``TestBackend/validTOTPCode``). The same against the real server is in `SecondFactorFlowTests`.
@Suite("App flow: second factor", .timeLimit(.minutes(5)))
@MainActor
struct SecondFactorFormTests {
    let password = "correct horse"

    func launch(_ backend: TestBackend, store: MemoryCredentialStore = MemoryCredentialStore()) async -> (SessionManager, LaunchRouter) {
        let clock = ManualSessionClock(Date())
        let manager = SessionManager(backend: backend, store: store, clock: clock, logger: .quiet)
        // TestBackend's user has no confirmed email: only the second factor is under test here.
        var configuration = LaunchRouter.Configuration()
        configuration.requiresConfirmedEmail = false
        let router = LaunchRouter(manager: manager, configuration: configuration, clock: clock, logger: .quiet)
        await router.start()
        return (manager, router)
    }

    @Test("Only digits are kept, at most six; submit needs six")
    func codeField() async throws {
        let backend = TestBackend()
        let (_, router) = await launch(backend)
        let form = router.makeSecondFactorForm()
        form.code = "12a 3-4"
        #expect(form.code == "1234")
        #expect(!form.canSubmit)
        form.code = "123 4567"
        #expect(form.code == "123456")
        #expect(form.canSubmit)
        #expect(form.prompt == "Enter the 6-digit code from your authenticator app.")
        #expect(form.submitTitle == "Verify")
    }

    @Test("Password sign-in with a verified factor → verifySecondFactor; a wrong code fails in words; the right one → main")
    func routeAndForm() async throws {
        let backend = TestBackend()
        backend.enableMFA()
        let (manager, router) = await launch(backend)
        #expect(router.route == .auth(.login))
        let login = router.makeLoginForm()
        login.email = "ada@example.com"
        login.password = password
        await login.submit()
        #expect(await eventually { router.route == .verifySecondFactor })

        let form = router.makeSecondFactorForm()
        form.code = "000000"
        await form.submit()
        #expect(form.failure?.title == "Incorrect Code")
        #expect(form.statusText == "That code isn't right. Enter the 6-digit code your authenticator app shows now.")
        #expect(form.code.isEmpty, "ready for the next code")
        #expect(form.feedback?.kind == .error)
        #expect(router.route == .verifySecondFactor)

        form.code = TestBackend.validTOTPCode
        #expect(form.failure == nil, "typing clears the failure")
        await form.submit()
        #expect(form.status == .succeeded(.secondFactorVerification))
        #expect(form.statusText == "Verified")
        #expect(await eventually { router.route == .main })
        #expect(await manager.currentSession?.assurance.level == .aal2)
        #expect(router.history.contains(.verifySecondFactor))
    }

    @Test("A restored aal1 session with a verified factor starts at verifySecondFactor; cancel signs out")
    func restoredAndCancelled() async throws {
        let backend = TestBackend()
        backend.enableMFA()
        let store = MemoryCredentialStore()
        let (first, _) = await launch(backend, store: store)
        try await first.account.signIn(email: "ada@example.com", password: password)

        let (manager, router) = await launch(backend, store: store)
        #expect(router.route == .verifySecondFactor)
        #expect(router.history == [.splash, .verifySecondFactor])
        await router.cancelSecondFactor()
        #expect(router.route == .auth(.login))
        #expect(await manager.currentSession == nil)
    }

    @Test("A session that is already aal2 goes straight to main at the next launch")
    func aal2Restored() async throws {
        let backend = TestBackend()
        backend.enableMFA()
        let store = MemoryCredentialStore()
        let (first, _) = await launch(backend, store: store)
        try await first.account.signIn(email: "ada@example.com", password: password)
        try await first.mfa.challengeAndVerify(factorID: "factor-1", code: TestBackend.validTOTPCode)
        let (_, router) = await launch(backend, store: store)
        #expect(router.history == [.splash, .main])
    }
}
