import Foundation
import Latchkey
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import LatchkeyAppFlow

/// The login form's "Sign in with a Passkey" and the offer to add a passkey after a password
/// sign-in, against the real server with the software authenticator.
@Suite("App flow: passkeys", .timeLimit(.minutes(5)))
@MainActor
struct PasskeyLoginTests {
    let password = "correct horse battery"

    nonisolated static func passkeysOn(_ configuration: inout ServerConfiguration) {
        configuration.passkeys.enabled = true
        configuration.passkeys.relyingPartyID = "example.com"
        configuration.passkeys.origins = ["https://example.com"]
    }

    /// An app whose device has `authenticator`.
    func app(_ server: TestServer, _ authenticator: SoftwarePasskeyAuthenticator?) -> FlowApp {
        let app = FlowApp(server: server)
        app.configureManager = { $0.passkeyAuthenticator = authenticator }
        return app
    }

    func settings(_ server: TestServer) async throws -> AuthServerSettings {
        try await server.backend().settings()
    }

    @Test("The button is offered only when the server has passkeys on and the manager has an authenticator")
    func offered() async throws {
        try await withFlowServer(configure: Self.passkeysOn) { server in
            let on = try await settings(server)
            #expect(on.passkeysEnabled)
            let form = await app(server, SoftwarePasskeyAuthenticator()).start(onboarding: false).router.makeLoginForm()
            #expect(!form.offersPasskeySignIn)
            form.apply(on)
            #expect(form.offersPasskeySignIn)
            form.apply(AuthServerSettings())
            #expect(!form.offersPasskeySignIn)

            let noDevice = await app(server, nil).start(onboarding: false).router.makeLoginForm()
            noDevice.apply(on)
            #expect(!noDevice.offersPasskeySignIn)
            #expect(form.strings.passkeySignInButton == "Sign in with a Passkey")
        }
        try await withFlowServer { server in
            let off = try await settings(server)
            #expect(!off.passkeysEnabled)
        }
    }

    @Test("After a password sign-in the offer is made once; Add Passkey registers; then the form signs in with it")
    func offerThenSignIn() async throws {
        try await withFlowServer(configure: Self.passkeysOn) { server in
            let email = uniqueEmail()
            _ = try await server.createAccount(email: email, password: password)
            let authenticator = SoftwarePasskeyAuthenticator()
            let flow = app(server, authenticator)
            let launch = await flow.start(onboarding: false)
            let preferences = MemoryPreferences()
            let offer = PasskeyOffer(manager: launch.manager, preferences: preferences)
            let form = launch.router.makeLoginForm(passkeyOffer: offer)
            let serverSettings = try await settings(server)
            form.apply(serverSettings)

            form.email = email
            form.password = password
            await form.submit()
            #expect(form.status == .succeeded(.signIn))
            #expect(offer.isPresented)
            await offer.accept(name: "Test phone")
            #expect(offer.status == .succeeded(.addPasskey))
            #expect(offer.statusText == "Passkey added")
            #expect(!offer.isPresented)
            #expect(try await launch.manager.passkeys.list().map(\.friendlyName) == ["Test phone"])

            // Signed out, the form signs in with the passkey: no email, no password.
            _ = await launch.router.signOut()
            let again = launch.router.makeLoginForm(passkeyOffer: offer)
            again.apply(serverSettings)
            await again.signInWithPasskey()
            #expect(again.status == .succeeded(.passkeySignIn))
            #expect(again.statusText == "Signed in")
            #expect(await launch.manager.currentSession?.user.email == email)

            // Later password sign-ins do not offer again.
            _ = await launch.router.signOut()
            let third = launch.router.makeLoginForm(passkeyOffer: offer)
            third.apply(serverSettings)
            third.email = email
            third.password = password
            await third.submit()
            #expect(third.status == .succeeded(.signIn))
            #expect(!offer.isPresented)
        }
    }

    @Test("Not Now closes the offer for good; a closed system sheet closes it quietly; a closed passkey sheet leaves the form cancelled")
    func dismissAndCancel() async throws {
        try await withFlowServer(configure: Self.passkeysOn) { server in
            let authenticator = SoftwarePasskeyAuthenticator()
            let launch = await app(server, authenticator).start(onboarding: false)
            let preferences = MemoryPreferences()
            let serverSettings = try await settings(server)

            for (index, declineBySheet) in [false, true].enumerated() {
                let email = uniqueEmail("offer\(index)")
                _ = try await server.createAccount(email: email, password: password)
                let offer = PasskeyOffer(manager: launch.manager, preferences: preferences)
                offer.apply(serverSettings)
                let form = launch.router.makeLoginForm(passkeyOffer: offer)
                form.email = email
                form.password = password
                await form.submit()
                #expect(offer.isPresented)
                if declineBySheet {
                    await authenticator.setResponse(.cancel)
                    await offer.accept()
                    #expect(offer.status == .cancelled(.addPasskey))
                    await authenticator.setResponse(.approve)
                } else {
                    offer.dismiss()
                }
                #expect(!offer.isPresented)
                // Signing in again does not bring it back.
                _ = await launch.router.signOut()
                let again = launch.router.makeLoginForm(passkeyOffer: offer)
                again.email = email
                again.password = password
                await again.submit()
                #expect(!offer.isPresented)
                _ = await launch.router.signOut()
            }

            await authenticator.setResponse(.cancel)
            let form = launch.router.makeLoginForm()
            form.apply(serverSettings)
            await form.signInWithPasskey()
            #expect(form.status == .cancelled(.passkeySignIn))
            #expect(form.statusText == nil)
            #expect(form.failure == nil)
        }
    }

    @Test("No offer when the server has passkeys off or the account already has one; a device without the passkey shows the taxonomy's words")
    func noOfferAndFailure() async throws {
        try await withFlowServer { server in
            let email = uniqueEmail()
            _ = try await server.createAccount(email: email, password: password)
            let launch = await app(server, SoftwarePasskeyAuthenticator()).start(onboarding: false)
            let offer = PasskeyOffer(manager: launch.manager, preferences: MemoryPreferences())
            let form = launch.router.makeLoginForm(passkeyOffer: offer)
            form.apply(try await settings(server))
            form.email = email
            form.password = password
            await form.submit()
            #expect(form.status == .succeeded(.signIn))
            #expect(!offer.isPresented, "passkeys are off")
        }
        try await withFlowServer(configure: Self.passkeysOn) { server in
            let email = uniqueEmail()
            _ = try await server.createAccount(email: email, password: password)
            let phone = await app(server, SoftwarePasskeyAuthenticator()).start(onboarding: false)
            try await phone.manager.account.signIn(email: email, password: password)
            guard case .registered = try await phone.manager.passkeys.register() else {
                Issue.record("not registered")
                return
            }

            let laptop = await app(server, SoftwarePasskeyAuthenticator()).start(onboarding: false)
            let offer = PasskeyOffer(manager: laptop.manager, preferences: MemoryPreferences())
            let form = laptop.router.makeLoginForm(passkeyOffer: offer)
            form.apply(try await settings(server))
            await form.signInWithPasskey()
            #expect(form.status.failure?.code == "no_passkey")
            #expect(form.failure?.title == "No Passkey Found")

            form.email = email
            form.password = password
            await form.submit()
            #expect(form.status == .succeeded(.signIn))
            #expect(!offer.isPresented, "the account has a passkey already")
        }
    }
}
