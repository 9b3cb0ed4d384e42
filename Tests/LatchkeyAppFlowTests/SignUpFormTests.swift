import Foundation
import Latchkey
import LatchkeyTestSupport
import Testing

@testable import LatchkeyAppFlow

/// The sign-up form: the server's password rules, confirmation, and its failures.
@Suite("App flow: sign-up form", .timeLimit(.minutes(5)))
@MainActor
struct SignUpFormTests {
    @Test("Password rules come from the server's settings (the Latchkey server: 8 characters)")
    func serverRules() async throws {
        try await withFlowServer { server in
            let settings = try await AuthServerSettings.fetch(from: .init(baseURL: server.baseURL, apiKey: server.server.anonKey))
            #expect(settings.passwordRules.minimumLength == 8)
            #expect(settings.autoconfirm)
            #expect(!settings.signUpDisabled)

            let app = FlowApp(server: server)
            let launch = await app.start(onboarding: false)
            launch.router.showAuth(.signUp)
            #expect(launch.router.route == .auth(.signUp))
            let form = launch.router.makeSignUpForm()
            form.email = uniqueEmail()
            form.password = "1234567"
            #expect(form.passwordProblems.isEmpty, "GoTrue's default minimum is 6 until the server's rules arrive")
            form.apply(settings)
            #expect(form.passwordProblems == [.tooShort(minimum: 8)])
            #expect(form.passwordMessages.first == "Use at least 8 characters.")
            #expect(!form.canSubmit)
            form.password = " 12345678 "
            #expect(form.canSubmit)
            await form.submit()
            #expect(form.outcome == .signedIn)
            #expect(form.statusText == "Account created")
            #expect(form.feedback?.kind == .success)
            #expect(await launch.waitForRoute(.main))
        }
    }

    @Test("Rules the server is stricter than: the server's 'weak password' in the taxonomy's words")
    func weakPasswordFromServer() async throws {
        try await withFlowServer { server in
            let app = FlowApp(server: server)
            let launch = await app.start(onboarding: false)
            let form = launch.router.makeSignUpForm(rules: PasswordRules(minimumLength: 6))
            form.email = uniqueEmail()
            form.password = "123456"
            await form.submit()
            #expect(form.failure?.title == "Check Your Details")
            #expect(form.failure?.message.contains("too weak") == true)
            #expect(form.announcement?.text.hasPrefix("Check Your Details: ") == true)
            #expect(form.feedback?.kind == .error)
        }
    }

    @Test("An existing account → 'Account Exists', Sign In instead")
    func accountExists() async throws {
        try await withFlowServer { server in
            let email = uniqueEmail()
            _ = try await server.createAccount(email: email)
            let app = FlowApp(server: server)
            let launch = await app.start(onboarding: false)
            let form = launch.router.makeSignUpForm()
            form.email = email
            form.password = "another long password"
            await form.submit()
            #expect(form.failure?.title == "Account Exists")
            #expect(form.failure?.action == .signInInstead)
            #expect(launch.router.route == .auth(.login))
        }
    }

    @Test("Confirmation field, byte limit, sign-up disabled (no server)")
    func localRules() async {
        let manager = SessionManager(backend: TestBackend(), store: MemoryCredentialStore(), logger: .quiet)
        let form = SignUpFormModel(manager: manager, requiresPasswordConfirmation: true)
        form.email = "ada@example.com"
        form.password = "long enough"
        form.confirmPassword = "long enouhg"
        #expect(form.confirmationMessage == "The passwords don't match.")
        #expect(!form.canSubmit)
        form.confirmPassword = "long enough"
        #expect(form.confirmationMessage == nil)
        #expect(form.canSubmit)
        form.password = String(repeating: "é", count: 37)
        form.confirmPassword = form.password
        #expect(form.passwordProblems == [.tooLong(maximumBytes: 72)], "74 bytes")
        form.clearPassword()
        #expect(form.password.isEmpty && form.confirmPassword.isEmpty)
        form.apply(AuthServerSettings(signUpDisabled: true))
        #expect(form.statusText == "Sign-up is currently disabled.")
        form.password = "long enough"
        #expect(!form.canSubmit)
    }
}
