import Foundation
import Latchkey
import LatchkeyTestSupport
import Testing

@testable import LatchkeyAppFlow

/// Seed 003's login feedback cases: wrong password, offline, account disabled, logout then a
/// fresh login — each with the taxonomy's words, an announcement and a haptic.
@Suite("App flow: login feedback", .timeLimit(.minutes(5)))
@MainActor
struct LoginFeedbackTests {
    let password = "correct horse battery"

    func form(_ app: FlowApp, email: String) async -> (FlowLaunch, LoginFormModel) {
        let launch = await app.start(onboarding: false)
        let form = launch.router.makeLoginForm()
        form.email = email
        return (launch, form)
    }

    @Test("Wrong password → 'Incorrect Password', Reset Password sends the reset email")
    func wrongPassword() async throws {
        try await withFlowAccount { server, app, email, userID in
            let (launch, form) = await form(app, email: email)
            form.password = "wrong password"
            await form.submit()
            let failure = try #require(form.failure)
            #expect(failure.title == "Incorrect Password")
            #expect(failure.message == "Incorrect email or password. Try 'Forgot Password?'")
            #expect(failure.action == .resetPassword)
            #expect(failure.action.label == "Reset Password")
            #expect(form.statusText == failure.message)
            #expect(form.announcement?.text == "Incorrect Password: Incorrect email or password. Try 'Forgot Password?'")
            #expect(form.feedback?.kind == .error)
            let firstFeedback = form.feedback
            await form.submit()
            #expect(form.feedback != firstFeedback, "a second failure is a second haptic")
            #expect(launch.router.route == .auth(.login))

            await form.performSuggestedAction()
            #expect(form.status == .succeeded(.passwordReset))
            #expect(form.statusText == "Check your email for a link to reset your password.")
            let outbox = server.server.outboxDirectory
            let mails = try FileManager.default.contentsOfDirectory(atPath: outbox.path)
                .map { try String(contentsOf: outbox.appendingPathComponent($0), encoding: .utf8) }
            #expect(
                mails.filter { $0.contains("To: \(email)") && $0.contains("Subject: Reset your password") }.count == 1,
                "the reset email went out")

            form.password = "wrong again"
            await form.submit()
            #expect(form.failure != nil)
            form.password = password
            #expect(form.failure == nil, "editing clears the error")
        }
    }

    @Test("Offline → 'Connection Issue', Retry signs in once the connection is back")
    func offline() async throws {
        try await withFlowAccount { server, app, email, userID in
            let (launch, form) = await form(app, email: email)
            form.password = password
            app.transport.setOffline(true)
            await form.submit()
            let failure = try #require(form.failure)
            #expect(failure.title == "Connection Issue")
            #expect(failure.message == "Check your connection and retry")
            #expect(failure.action == .retry)
            #expect(form.announcement?.text == "Connection Issue: Check your connection and retry")
            #expect(form.password == password, "nothing to retype")

            app.transport.setOffline(false)
            await form.performSuggestedAction()
            #expect(form.status == .succeeded(.signIn))
            #expect(await launch.waitForRoute(.main))
        }
    }

    @Test("Account disabled → 'Account disabled. Contact support'")
    func disabled() async throws {
        try await withFlowServer { server in
            let email = uniqueEmail()
            let userID = try await server.createAccount(email: email, password: password)
            try await server.ban(userID)
            let app = FlowApp(server: server)
            let (_, form) = await form(app, email: email)
            form.password = password
            await form.submit()
            #expect(form.failure?.title == "Account Disabled")
            #expect(form.failure?.message == "Account disabled. Contact support")
            #expect(form.failure?.action == .contactSupport)
            await form.performSuggestedAction()
            #expect(form.failure == nil, "an action the app handles just dismisses")
        }
    }

    @Test("Logout then a fresh login works with clean state")
    func logoutThenLogin() async throws {
        try await withFlowAccount { server, app, email, userID in
            let (launch, form) = await form(app, email: email)
            form.password = password
            await form.submit()
            #expect(await launch.waitForRoute(.main))
            let firstSession = try #require(await launch.manager.currentSession)

            let report = await launch.router.signOut()
            #expect(report.isComplete)
            #expect(launch.router.route == .auth(.login))
            #expect(try await app.keychain.load(key: "latchkey.session") == nil)

            let fresh = launch.router.makeLoginForm()
            #expect(fresh.email.isEmpty && fresh.password.isEmpty && fresh.status == .idle)
            fresh.email = email
            fresh.password = password
            await fresh.submit()
            #expect(await launch.waitForRoute(.main))
            let secondSession = try #require(await launch.manager.currentSession)
            #expect(secondSession.user.id == userID)
            #expect(secondSession.refreshToken != firstSession.refreshToken)
            #expect(await launch.waitForDataSpace(user: userID))
        }
    }
}
