import Foundation
import Latchkey
import LatchkeyTestSupport
import Testing

@testable import LatchkeyAppFlow

/// Seed 001's matrix, rows 5–8: reinstall, unverified email, the persisted-keychain bug, legacy data.
@Suite("App flow: seed 001 edge-case matrix (reinstall, verification, legacy)", .timeLimit(.minutes(5)))
@MainActor
struct SeedEdgeCaseMatrixReinstallTests {
    let password = "correct horse battery"

    /// A first install, onboarded and signed in, with a data file written.
    func signedInInstall(_ app: FlowApp, email: String, userID: String) async throws -> FlowLaunch {
        let launch = await app.start()
        launch.router.completeOnboarding()
        #expect(await launch.logIn(email: email))
        #expect(await launch.waitForDataSpace(user: userID))
        try writeFile("challenges.sqlite", in: try #require(launch.dataSpace.area.directory))
        await launch.terminate()
        return launch
    }

    @Test("5. Delete app → reinstall → onboarding → login same user: auth shown, local data empty")
    func row5Reinstall() async throws {
        try await withFlowAccount { server, app, email, userID in
            _ = try await signedInInstall(app, email: email, userID: userID)

            app.reinstall()
            let launch = await app.start()
            #expect(launch.router.route == .onboarding)
            #expect(launch.router.authState == .signedOut(.staleInstall))
            launch.router.completeOnboarding()
            #expect(launch.router.route == .auth(.login), "auth shown, never main")
            #expect(await launch.logIn(email: email))
            #expect(launch.router.history == [.splash, .onboarding, .auth(.login), .main])
            #expect(await launch.waitForDataSpace(user: userID))
            #expect(fileNames(in: launch.dataSpace.area.directory).isEmpty, "local data went with the app")
        }
    }

    @Test("6. Email unverified → verify → reload → main, data unchanged")
    func row6Unverified() async throws {
        try await withFlowAccount { server, app, email, userID in
            let launch = try await signedInInstall(app, email: email, userID: userID)
            await launch.router.setPhase(.active).value

            try await server.setEmailConfirmed(userID, false)
            try await launch.manager.account.refreshUser()
            #expect(await launch.waitForRoute(.verifyEmail))
            #expect(launch.router.verificationEmail == email)

            await launch.router.confirmEmailVerified()
            #expect(launch.router.verificationStatus.failure?.category == .emailNotConfirmed)
            #expect(launch.router.route == .verifyEmail)

            try await server.setEmailConfirmed(userID, true)
            await launch.router.confirmEmailVerified()
            #expect(launch.router.route == .main)
            #expect(launch.router.verificationStatus == .succeeded(.emailVerification))
            #expect(Array(launch.router.history.suffix(3)) == [.main, .verifyEmail, .main])
            #expect(fileNames(in: launch.dataSpace.area.directory) == ["challenges.sqlite"])
        }
    }

    @Test("7. Keychain kept across reinstall, onboarding completed → auth forced (install marker)")
    func row7StaleKeychain() async throws {
        try await withFlowAccount { server, app, email, userID in
            _ = try await signedInInstall(app, email: email, userID: userID)
            app.reinstall()
            let launch = await app.start()
            launch.router.completeOnboarding()
            #expect(launch.router.route == .auth(.login))
            #expect(launch.router.history == [.splash, .onboarding, .auth(.login)])
            #expect(try await app.keychain.load(key: "latchkey.session") == nil, "stale credentials wiped")
        }
    }

    @Test("7b. Without an install marker the router itself forces auth, and the session cannot resurface next launch")
    func row7RouterInvariant() async throws {
        try await withFlowServer { server in
            let email = uniqueEmail()
            let userID = try await server.createAccount(email: email, password: password)
            let app = FlowApp(server: server)
            app.useInstallMarker = false
            _ = try await signedInInstall(app, email: email, userID: userID)
            app.reinstall()

            let launch = await app.start()
            #expect(launch.router.route == .onboarding)
            launch.router.completeOnboarding()
            #expect(launch.router.route == .auth(.login), "never main on the keychain's session")
            #expect(await eventually { launch.router.authState == .signedOut(.userInitiated) }, "the untrusted session is discarded")
            #expect(!launch.router.history.contains(.main))
            await launch.terminate()

            let next = await app.start()
            #expect(next.router.route == .auth(.login), "quitting at the login screen does not open main next time")
        }
    }

    @Test("7c. Even keeping the untrusted session, the route is auth until someone signs in")
    func row7InvariantWithoutDiscard() async throws {
        try await withFlowServer { server in
            let email = uniqueEmail()
            let userID = try await server.createAccount(email: email, password: password)
            let app = FlowApp(server: server)
            app.useInstallMarker = false
            app.configureRouter = { $0.discardsUntrustedSessions = false }
            _ = try await signedInInstall(app, email: email, userID: userID)
            app.reinstall()
            let launch = await app.start()
            launch.router.completeOnboarding()
            #expect(launch.router.authState.isSignedIn, "the restored session is still there")
            #expect(launch.router.route == .auth(.login))
            #expect(await launch.logIn(email: email), "a sign-in during this launch is trusted")
        }
    }

    @Test("8. Legacy data: shown when logged out, hidden when logged in, visible only to the user who claims it")
    func row8Legacy() async throws {
        try await withFlowServer { server in
            let first = uniqueEmail("first")
            let second = uniqueEmail("second")
            let firstID = try await server.createAccount(email: first, password: password)
            let secondID = try await server.createAccount(email: second, password: password)
            let app = FlowApp(server: server)
            try writeFile("challenges.sqlite", in: app.legacyDirectory, contents: "before accounts")

            let launch = await app.start()
            #expect(launch.dataSpace.area == .legacy(app.legacyDirectory), "logged out: legacy data shown")
            launch.router.completeOnboarding()
            #expect(await launch.logIn(email: first))
            #expect(await launch.waitForDataSpace(user: firstID))
            #expect(fileNames(in: launch.dataSpace.area.directory).isEmpty, "logged in: legacy data hidden")
            #expect(launch.dataSpace.hasLegacyData)

            #expect(try launch.dataSpace.claimLegacyData() == ["challenges.sqlite"])
            #expect(fileNames(in: launch.dataSpace.area.directory) == ["challenges.sqlite"])
            #expect(!launch.dataSpace.hasLegacyData)

            await launch.router.signOut()
            #expect(launch.dataSpace.area == .none, "claimed: no longer shown when logged out")
            #expect(await launch.logIn(email: second))
            #expect(await launch.waitForDataSpace(user: secondID))
            #expect(fileNames(in: launch.dataSpace.area.directory).isEmpty)
            #expect(try launch.dataSpace.claimLegacyData().isEmpty, "claimable by one user only")
        }
    }
}
