import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// The seeds' test procedures, each against the real server.
@Suite("End to end: the seeds' test procedures")
struct SeedProcedureTests {
    @Test("Valid token → auto-login without a network call")
    func autoLoginWithoutNetwork() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            let (_, session) = try await app.signUp()
            let before = app.transport.total
            app.clock.advance(by: 60)  // "close the app, relaunch"
            let state = await app.launch().restore()
            #expect(state == .signedIn(session))
            #expect(app.transport.total == before, "no request on the launch path")
            #expect(try await server.refreshCount() == 0)
        }
    }

    @Test("No token → signed out (login screen), no network")
    func noToken() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            #expect(await app.launch().restore() == .signedOut(.noSession))
            #expect(app.transport.total == 0)
        }
    }

    @Test("Expired access token → exactly one refresh, signed in")
    func expiredToken() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            let (_, session) = try await app.signUp()
            app.clock.advance(by: 2 * 3600)
            let state = await app.launch().restore()
            #expect(state.isSignedIn)
            #expect(state.session?.refreshToken != session.refreshToken)
            #expect(app.transport.count("/token") == 1)
            #expect(try await server.refreshCount() == 1)
            #expect(try await app.storedRefreshToken() == state.session?.refreshToken)
        }
    }

    @Test("Revoked session (admin signs the user out everywhere) → signed out with the reason")
    func revokedSession() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            let (_, session) = try await app.signUp()
            try await server.logoutEverywhere(userID: session.user.id)
            app.clock.advance(by: 2 * 3600)
            let state = await app.launch().restore()
            guard case .signedOut(.sessionRevoked) = state else {
                Issue.record("expected sessionRevoked, got \(state)")
                return
            }
            #expect(try await app.storedRefreshToken() == nil, "revoked credentials are wiped")
        }
    }

    @Test("Foreground after 1 s → no refresh; after 2 h → refresh")
    func foregrounding() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            let (manager, _) = try await app.signUp()
            await manager.setPhase(.background)
            app.clock.advance(by: 1)
            await manager.setPhase(.active)
            try await Task.sleep(nanoseconds: 50_000_000)
            #expect(try await server.refreshCount() == 0)

            await manager.setPhase(.background)
            app.clock.advance(by: 2 * 3600)
            await manager.setPhase(.active)
            #expect(try await server.refreshCount() == 1)
            #expect(app.transport.count("/user") == 1, "the user is re-fetched to detect revocation")
            #expect(await manager.state.isSignedIn)
        }
    }

    @Test("Account deleted while in the background → signed out on return")
    func deletedAccount() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            let (manager, session) = try await app.signUp()
            await manager.setPhase(.background)
            try await server.deleteUser(session.user.id)
            app.clock.advance(by: 2 * 3600)
            await manager.setPhase(.active)
            let state = await manager.state
            #expect(!state.isSignedIn, "\(state)")
            #expect(try await app.storedRefreshToken() == nil)
        }
    }

    @Test("Logout then relaunch → signed out; the old refresh token is dead on the server")
    func logoutThenRelaunch() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            let (manager, session) = try await app.signUp()
            let report = await manager.signOut()
            #expect(report.server == .succeeded)
            #expect(await app.launch().restore() == .signedOut(.noSession))
            do {
                _ = try await server.backend().refresh(refreshToken: session.refreshToken)
                Issue.record("the refresh token should be revoked")
            } catch let error as BackendError {
                #expect(error.definitiveSignOutReason != nil, "\(error)")
            }
        }
    }

    @Test("Days later → still signed in")
    func daysLater() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            _ = try await app.signUp()
            app.clock.advance(by: 5 * 86_400)
            server.serverClock.advance(by: 5 * 86_400)
            let state = await app.launch().restore()
            #expect(state.isSignedIn, "\(state)")
            #expect(try await server.refreshCount() == 1)
        }
    }

    @Test("Wrong password → 'Incorrect email or password', with reset as the suggested action")
    func wrongPassword() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            let (manager, session) = try await app.signUp()
            await manager.signOut()
            do {
                try await manager.account.signIn(email: try #require(session.user.email), password: "wrong password!")
                Issue.record("expected a failure")
            } catch let failure as AuthFailure {
                #expect(failure.category == .invalidCredentials)
                #expect(failure.presentation.message == "Incorrect email or password. Try 'Forgot Password?'")
                #expect(failure.presentation.action == .resetPassword)
            }
            let again = try await manager.account.signIn(email: try #require(session.user.email), password: "correct horse battery")
            #expect(again.user.id == session.user.id, "login after logout works with fresh state")
        }
    }
}
