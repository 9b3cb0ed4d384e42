import Foundation
import Latchkey
import LatchkeyTestSupport
import Testing

@testable import LatchkeyAppFlow

/// Seed 002 #11–#18, #27–#28 and seed 003's login feedback cases, against the real server.
@Suite("App flow: login form", .timeLimit(.minutes(5)))
@MainActor
struct LoginFormTests {
    let password = "correct horse battery"

    func signedOutLaunch(_ app: FlowApp) async -> FlowLaunch {
        let launch = await app.start(onboarding: false)
        return launch
    }

    @Test("Email trimmed and validated as you type; submit enabled only when valid")
    func validation() async throws {
        try await withFlowServer { server in
            let app = FlowApp(server: server)
            let form = await signedOutLaunch(app).router.makeLoginForm()
            #expect(form.emailValidation == .empty)
            #expect(form.emailMessage == nil)
            for (typed, verdict) in [
                ("a", EmailValidation.invalid), ("ada@", .invalid), ("ada@example", .invalid),
                ("ada@example.c", .invalid), ("ada lovelace@example.com", .invalid),
                ("ada@example.com", .valid), ("  ada@example.com \n", .valid),
            ] {
                form.email = typed
                #expect(form.emailValidation == verdict, "\(typed)")
            }
            form.email = "ada@example"
            #expect(form.emailMessage == "Enter a valid email address.")
            form.email = "  ada@example.com "
            #expect(form.trimmedEmail == "ada@example.com")
            #expect(!form.canSubmit, "no password yet")
            form.password = " "
            #expect(form.canSubmit, "a password of spaces is a password")
            form.email = "ada@"
            #expect(!form.canSubmit)
            await form.submit()
            #expect(form.status == .idle, "an invalid form sends nothing")
            #expect(app.transport.count("/token") == 0)
        }
    }

    @Test("Password never trimmed; visibility toggle and clear buttons")
    func passwordUntrimmed() async throws {
        try await withFlowServer { server in
            let email = uniqueEmail()
            _ = try await server.createAccount(email: email, password: "  spaced out  ")
            let app = FlowApp(server: server)
            let launch = await signedOutLaunch(app)
            let form = launch.router.makeLoginForm()
            form.email = email
            form.password = "spaced out"
            await form.submit()
            #expect(form.failure?.title == "Incorrect Password", "a trimmed password is a different password")
            form.password = "  spaced out  "
            await form.submit()
            #expect(form.status == .succeeded(.signIn))
            #expect(await launch.waitForRoute(.main))

            #expect(!form.isPasswordVisible)
            form.togglePasswordVisibility()
            #expect(form.isPasswordVisible)
            form.password = "secret"
            form.clearPassword()
            form.clearEmail()
            #expect(form.email.isEmpty && form.password.isEmpty)
        }
    }

    @Test("A double tap sends one request; 'Signing in…' while in flight")
    func doubleTap() async throws {
        try await withFlowAccount { server, app, email, userID in
            let launch = await signedOutLaunch(app)
            let form = launch.router.makeLoginForm()
            form.email = email
            form.password = password
            app.gate.hold(path: "/token")
            let first = Task { await form.submit() }
            #expect(await eventually { app.gate.heldCount == 1 })
            #expect(form.isSubmitting)
            #expect(form.statusText == "Signing in…")
            #expect(form.submitTitle == "Signing in…")
            #expect(!form.canSubmit)
            await form.submit()
            app.gate.release()
            await first.value
            #expect(app.transport.count("/token") == 1)
            #expect(form.statusText == "Signed in")
            #expect(form.submitTitle == "Sign In")
            #expect(form.password.isEmpty, "the password is not kept after signing in")
            #expect(form.feedback?.kind == .success)
            #expect(form.announcement?.text == "Signed in")
        }
    }
}
