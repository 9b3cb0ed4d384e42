import Foundation
import Latchkey
import LatchkeyTestSupport
import Testing

@testable import LatchkeyAppFlow

/// Seed 002 #29: "Session Expiring Soon" with "Stay Signed In" and "Sign Out", on a session with
/// a maximum age (1 hour, warned 5 minutes ahead), against the real server.
@Suite("App flow: session-expiry warning", .timeLimit(.minutes(5)))
@MainActor
struct SessionExpiryWarningTests {
    let password = "correct horse battery"

    func signedIn(_ server: TestServer) async throws -> (FlowApp, FlowLaunch, SessionExpiryWarning) {
        let email = uniqueEmail()
        _ = try await server.createAccount(email: email, password: password)
        let app = FlowApp(server: server)
        app.configureManager = { $0.maximumSessionAge = 3600 }
        let launch = await app.launch(onboarding: false)
        let warning = SessionExpiryWarning(manager: launch.manager, clock: app.clock)
        await launch.router.start()
        try await launch.manager.account.signIn(email: email, password: password)
        #expect(await launch.waitForRoute(.main))
        return (app, launch, warning)
    }

    @Test("Five minutes before the end: the warning, in the seed's words")
    func warns() async throws {
        try await withFlowServer { server in
            let (app, launch, warning) = try await signedIn(server)
            #expect(!warning.isPresented)
            app.clock.advance(by: 3300)
            #expect(await eventually { warning.isPresented })
            #expect(warning.title == "Session Expiring Soon")
            #expect(warning.message == "Your session will expire in 5 minutes. Would you like to stay signed in?")
            #expect(warning.expiresAt == app.clock.now().addingTimeInterval(300))
            #expect([warning.staySignedInTitle, warning.signOutTitle] == ["Stay Signed In", "Sign Out"])

            app.clock.advance(by: 300)
            #expect(await launch.waitForRoute(.auth(.login)), "ignored, the session ends")
            #expect(launch.router.authState == .signedOut(.maximumSessionAgeExceeded))
            #expect(await eventually { !warning.isPresented }, "closed when the session ends")
        }
    }

    @Test("Stay Signed In: the password starts a new session for the same user; the old limit no longer applies")
    func staySignedIn() async throws {
        try await withFlowServer { server in
            let (app, launch, warning) = try await signedIn(server)
            let userID = try #require(await launch.manager.currentSession?.user.id)
            app.clock.advance(by: 3300)
            #expect(await eventually { warning.isPresented })
            #expect(!warning.canStaySignedIn, "needs the password")
            warning.password = "wrong password"
            await warning.staySignedIn()
            #expect(warning.status.failure?.category == .invalidCredentials)
            #expect(warning.isPresented)
            warning.password = password
            await warning.staySignedIn()
            #expect(!warning.isPresented)
            #expect(warning.password.isEmpty)

            app.clock.advance(by: 600)
            try await Task.sleep(nanoseconds: 50_000_000)
            #expect(launch.router.route == .main, "past the first session's end, still signed in")
            #expect(await launch.manager.currentSession?.user.id == userID)
            #expect(launch.dataSpace.currentUserID == userID, "same user: no cleanup ran")
        }
    }

    @Test("Sign Out signs out now")
    func signOut() async throws {
        try await withFlowServer { server in
            let (app, launch, warning) = try await signedIn(server)
            app.clock.advance(by: 3300)
            #expect(await eventually { warning.isPresented })
            await warning.signOut()
            #expect(!warning.isPresented)
            #expect(await launch.waitForRoute(.auth(.login)))
            #expect(launch.router.authState == .signedOut(.userInitiated))
        }
    }
}
