import Foundation
import Latchkey
import LatchkeyTestSupport
import Testing

@testable import LatchkeyAppFlow

/// An app's own words, given once as ``AppFlowStrings``, are what every model shows.
@Suite("App flow: the words an app gives", .timeLimit(.minutes(5)))
@MainActor
struct AppFlowStringsTests {
    /// Every string the tests look at, replaced ("German").
    static var german: AppFlowStrings {
        var strings = AppFlowStrings()
        strings.signInButton = "Anmelden"
        strings.createAccountButton = "Konto erstellen"
        strings.invalidEmail = "Ungültige E-Mail-Adresse."
        strings.inProgress = { _ in "Bitte warten…" }
        strings.failure = { failure in
            AuthFailure.Presentation(title: "Fehler", message: "Falsches Passwort (\(failure.category)).", action: failure.presentation.action)
        }
        strings.actionLabel = { _ in "Passwort zurücksetzen" }
        strings.failureAnnouncement = { "Achtung: \($0.message)" }
        strings.biometryName = { _ in "Gesichtserkennung" }
        strings.unlockButton = { "Mit \($0) entsperren" }
        strings.unlockReason = "Zum Fortfahren entsperren."
        strings.biometricFailure = { _, name in "\(name) fehlgeschlagen." }
        strings.sessionExpiringTitle = "Sitzung läuft ab"
        strings.sessionExpiringMessage = { "Noch \($0) Minuten." }
        strings.staySignedIn = "Angemeldet bleiben"
        strings.signOut = "Abmelden"
        return strings
    }

    @Test("The router's forms show the app's words: titles, hints, failures, announcements")
    func forms() async throws {
        try await withFlowServer { server in
            let email = uniqueEmail()
            _ = try await server.createAccount(email: email, password: "correct horse battery")
            let app = FlowApp(server: server)
            app.strings = Self.german
            let launch = await app.start(onboarding: false)
            #expect(launch.router.makeSignUpForm().submitTitle == "Konto erstellen")
            let form = launch.router.makeLoginForm()
            #expect(form.submitTitle == "Anmelden")
            form.email = "not an address"
            #expect(form.emailMessage == "Ungültige E-Mail-Adresse.")

            form.email = email
            form.password = "wrong password"
            await form.submit()
            #expect(form.failure?.title == "Fehler")
            #expect(form.failure?.message == "Falsches Passwort (invalidCredentials).")
            #expect(form.failureActionLabel == "Passwort zurücksetzen")
            #expect(form.statusText == "Falsches Passwort (invalidCredentials).")
            #expect(form.announcement?.text == "Achtung: Falsches Passwort (invalidCredentials).")
        }
    }

    @Test("The lock screen and the biometric prompt use the app's words")
    func lock() async {
        let authenticator = ScriptedAuthenticator()
        let preferences = MemoryPreferences(["biometricUnlockEnabled": true])
        let lock = AppLock(authenticator: authenticator, preferences: preferences, strings: Self.german, logger: .quiet)
        #expect(lock.isLocked)
        #expect(lock.unlockButtonTitle == "Mit Gesichtserkennung entsperren")
        authenticator.script(.authenticationFailed)
        #expect(await !lock.unlock())
        #expect(authenticator.prompts.last?.reason == "Zum Fortfahren entsperren.")
        #expect(lock.message == "Gesichtserkennung fehlgeschlagen.")
    }

    @Test("The session-expiry alert uses the app's words")
    func expiryWarning() {
        let manager = SessionManager(backend: TestBackend(), store: MemoryCredentialStore(), logger: .quiet)
        let warning = SessionExpiryWarning(manager: manager, strings: Self.german)
        warning.handle(.sessionExpiring(in: 300))
        #expect(warning.isPresented)
        #expect(warning.title == "Sitzung läuft ab")
        #expect(warning.message == "Noch 5 Minuten.")
        #expect([warning.staySignedInTitle, warning.signOutTitle] == ["Angemeldet bleiben", "Abmelden"])
    }
}
