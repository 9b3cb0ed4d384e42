import Foundation
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Passkeys against the real server in process, with `LatchkeyTesting`'s software
/// authenticator: register, list, rename, delete; sign in after a sign-out, stored like every
/// sign-in; cancelling is not an error; an authenticator without the passkey, a removed passkey,
/// a duplicate, the per-user limit and a server with passkeys off fail with their own codes.
@Suite("End to end: passkeys", .timeLimit(.minutes(5)))
struct PasskeyFlowTests {
    static let relyingPartyID = "example.com"

    /// A server with passkeys on for `example.com` (the software authenticator's client data
    /// names `https://example.com`, as Apple's does for an app with that associated domain).
    static func passkeysOn(_ configuration: inout ServerConfiguration) {
        configuration.passkeys.enabled = true
        configuration.passkeys.relyingPartyID = relyingPartyID
        configuration.passkeys.origins = ["https://\(relyingPartyID)"]
    }

    /// Passkeys on, at most two per user.
    static func twoPasskeysPerUser(_ configuration: inout ServerConfiguration) {
        passkeysOn(&configuration)
        configuration.passkeys.maximumPerUser = 2
    }

    /// An installation of the app whose device has `authenticator`.
    static func app(_ server: TestServer, _ authenticator: SoftwarePasskeyAuthenticator) -> E2EApp {
        E2EApp(server: server) {
            $0.automaticRefresh = false
            $0.passkeyAuthenticator = authenticator
        }
    }

    /// Expects `body` to throw an ``AuthFailure`` of `category` with `code`, and returns it.
    @discardableResult
    func expectFailure<T>(
        _ category: AuthFailure.Category, _ code: String, sourceLocation: SourceLocation = #_sourceLocation, _ body: () async throws -> T
    ) async throws -> AuthFailure? {
        do {
            let value = try await body()
            Issue.record("expected \(code), got \(value)", sourceLocation: sourceLocation)
            return nil
        } catch let failure as AuthFailure {
            #expect(failure.category == category, sourceLocation: sourceLocation)
            #expect(failure.code == code, sourceLocation: sourceLocation)
            return failure
        }
    }

    func registered(_ result: PasskeyRegistrationResult) throws -> Passkey {
        guard case .registered(let passkey) = result else { throw AuthFailure(.unknown, detail: "not registered: \(result)") }
        return passkey
    }

    @Test("Register with a name, list, rename; sign out; sign in with the passkey: stored, restored after a relaunch, amr passkey")
    func registerAndSignIn() async throws {
        try await withTestServer(configure: Self.passkeysOn) { server in
            let authenticator = SoftwarePasskeyAuthenticator()
            let app = Self.app(server, authenticator)
            let (manager, signedUp) = try await app.signUp()

            let passkey = try registered(try await manager.passkeys.register(name: "  Test phone "))
            #expect(passkey.friendlyName == "Test phone")
            #expect(passkey.createdAt != nil)
            let held = await authenticator.credentials(for: Self.relyingPartyID)
            #expect(held.count == 1)
            #expect(held.first?.userHandle == Data(signedUp.user.id.lowercased().utf8), "the user handle is the account's id")
            #expect(held.first?.userName == signedUp.user.email)
            #expect(await manager.currentSession == signedUp, "registering leaves the session as it was")

            #expect(try await manager.passkeys.list().map(\.friendlyName) == ["Test phone"])
            let renamed = try await manager.passkeys.rename(passkey, to: "Work phone")
            #expect(renamed.id == passkey.id)
            #expect(try await manager.passkeys.list().map(\.friendlyName) == ["Work phone"])

            _ = await manager.signOut()
            #expect(try await app.storedRefreshToken() == nil)

            let events = EventRecorder(manager)
            guard case .signedIn(let session) = try await manager.account.signInWithPasskey() else {
                Issue.record("not signed in")
                return
            }
            #expect(session.user.id == signedUp.user.id)
            #expect(session.assurance.methodNames.contains("passkey"))
            #expect(try await app.storedRefreshToken() == session.refreshToken, "stored before anyone sees it")
            #expect(await events.wait { $0.contains(where: \.isSignedIn) })
            events.cancel()
            #expect(try await manager.passkeys.list().first?.lastUsedAt != nil)
            #expect(await authenticator.credentials(for: Self.relyingPartyID).first?.signCount == 1)

            // A cold start restores the passkey's session without a request.
            let relaunched = app.launch()
            #expect(await relaunched.restore() == .signedIn(session))
            // …and it refreshes like any other.
            let refreshed = try await relaunched.refresh()
            #expect(refreshed.user.id == signedUp.user.id)

            // A second sign-in advances the counter, which the server accepts.
            _ = await relaunched.signOut()
            guard case .signedIn = try await relaunched.account.signInWithPasskey() else {
                Issue.record("second sign-in failed")
                return
            }
            #expect(await authenticator.credentials(for: Self.relyingPartyID).first?.signCount == 2)
        }
    }

    @Test("Cancelling is not an error: nothing registered, nothing signed in, nothing stored")
    func cancel() async throws {
        try await withTestServer(configure: Self.passkeysOn) { server in
            let authenticator = SoftwarePasskeyAuthenticator(response: .cancel)
            let app = Self.app(server, authenticator)
            let (manager, signedUp) = try await app.signUp()
            #expect(try await manager.passkeys.register(name: "Phone") == .cancelled)
            #expect(try await manager.passkeys.list().isEmpty)
            #expect(await manager.currentSession == signedUp)

            await authenticator.setResponse(.approve)
            _ = try registered(try await manager.passkeys.register())
            _ = await manager.signOut()
            await authenticator.setResponse(.cancel)
            #expect(try await manager.account.signInWithPasskey() == .cancelled)
            #expect(await manager.currentSession == nil)
            #expect(try await app.storedRefreshToken() == nil)
            #expect(await authenticator.declined == 2)
        }
    }

    @Test("Another device without the passkey fails cleanly (no_passkey); a removed passkey is refused by the server")
    func otherAuthenticatorAndRemovedPasskey() async throws {
        try await withTestServer(configure: Self.passkeysOn) { server in
            let phone = SoftwarePasskeyAuthenticator()
            let (manager, _) = try await Self.app(server, phone).signUp()
            let passkey = try registered(try await manager.passkeys.register(name: "Phone"))

            let laptop = Self.app(server, SoftwarePasskeyAuthenticator())
            let other = laptop.launch()
            _ = await other.restore()
            try await expectFailure(.invalidCredentials, "no_passkey") { try await other.account.signInWithPasskey() }
            #expect(await other.currentSession == nil)
            #expect(try await laptop.storedRefreshToken() == nil)
            #expect(AuthFailure(.invalidCredentials, code: "no_passkey").presentation.title == "No Passkey Found")

            // Removed from the account: the phone still offers it, the server refuses it.
            try await manager.passkeys.delete(passkey)
            #expect(try await manager.passkeys.list().isEmpty)
            _ = await manager.signOut()
            let refused = try await expectFailure(.invalidCredentials, "webauthn_verification_failed") {
                try await manager.account.signInWithPasskey()
            }
            #expect(refused?.presentation.title == "Passkey Not Accepted")
            #expect(await manager.currentSession == nil)
        }
    }

    @Test("A second passkey on the same device is refused (webauthn_credential_exists); past the limit: too_many_passkeys")
    func duplicateAndLimit() async throws {
        try await withTestServer(configure: Self.twoPasskeysPerUser) { server in
            let (phone, _) = try await Self.app(server, SoftwarePasskeyAuthenticator()).signUp()
            _ = try registered(try await phone.passkeys.register())
            try await expectFailure(.invalidInput, "webauthn_credential_exists") { try await phone.passkeys.register() }

            // The same account on two more devices: the second passkey is allowed, the third is not.
            let email = try #require(await phone.currentSession?.user.email)
            for device in 1...2 {
                var configuration = SessionManagerConfiguration()
                configuration.automaticRefresh = false
                configuration.passkeyAuthenticator = SoftwarePasskeyAuthenticator()
                let manager = SessionManager(backend: server.backend(), store: MemoryCredentialStore(), configuration: configuration)
                try await manager.account.signIn(email: email, password: "correct horse battery")
                if device == 1 {
                    _ = try registered(try await manager.passkeys.register())
                } else {
                    let failure = try await expectFailure(.permission, "too_many_passkeys") { try await manager.passkeys.register() }
                    #expect(failure?.presentation.title == "Too Many Passkeys")
                }
            }
            #expect(try await phone.passkeys.list().count == 2)
        }
    }

    @Test("A server with passkeys off: /settings says so, and every call fails with passkey_disabled")
    func passkeysOff() async throws {
        try await withTestServer { server in
            #expect(try await !server.backend().settings().passkeysEnabled)
            let app = Self.app(server, SoftwarePasskeyAuthenticator())
            let (manager, signedUp) = try await app.signUp()
            let disabled = AuthFailure(.permission, code: "passkey_disabled", status: 404)
            await #expect(throws: disabled) { try await manager.passkeys.register(name: "Phone") }
            await #expect(throws: disabled) { try await manager.passkeys.list() }
            #expect(disabled.presentation.title == "Passkeys Unavailable")
            #expect(await manager.currentSession == signedUp, "a refusal of the feature is not a sign-out")
            _ = await manager.signOut()
            await #expect(throws: disabled) { try await manager.account.signInWithPasskey() }
        }
        let enabled = try await withTestServer(configure: Self.passkeysOn) { server in
            try await server.backend().settings().passkeysEnabled
        }
        #expect(enabled)
    }

    @Test("Without an authenticator: passkey_authenticator_unavailable before any request; a bad name is refused before asking")
    func noAuthenticatorAndBadName() async throws {
        try await withTestServer(configure: Self.passkeysOn) { server in
            let app = E2EApp(server: server) { $0.automaticRefresh = false }
            let (manager, _) = try await app.signUp()
            let before = app.transport.total
            try await expectFailure(.unknown, "passkey_authenticator_unavailable") { try await manager.passkeys.register() }
            try await expectFailure(.unknown, "passkey_authenticator_unavailable") { try await manager.account.signInWithPasskey() }
            #expect(app.transport.total == before)
            #expect(try await manager.passkeys.list().isEmpty, "listing needs no authenticator")

            let authenticator = SoftwarePasskeyAuthenticator()
            let withDevice = Self.app(server, authenticator).launch()
            _ = await withDevice.restore()
            try await withDevice.account.signIn(email: try #require(await manager.currentSession?.user.email), password: "correct horse battery")
            try await expectFailure(.invalidInput, "validation_failed") { try await withDevice.passkeys.register(name: "   ") }
            try await expectFailure(.invalidInput, "validation_failed") {
                try await withDevice.passkeys.register(name: String(repeating: "x", count: 121))
            }
            #expect(await authenticator.registrations == 0)
        }
    }
}
