import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// `manager.account.importSession(accessToken:refreshToken:)` against the real server: another
/// client's session (here: one a first app made) is taken over without a new sign-in, with one
/// refresh at most, and nothing is saved when neither token is good any more.
@Suite("Importing another client's session")
struct ImportSessionTests {
    @Test("a live access token: the user is asked for, no refresh is spent, the session is saved and works")
    func liveAccessToken() async throws {
        try await withTestServer { server in
            let (_, old) = try await E2EApp(server: server).signUp()
            let refreshesBefore = try await server.refreshCount()

            let app = E2EApp(server: server)
            let manager = app.launch()
            await manager.restore()
            let session = try await manager.account.importSession(accessToken: old.accessToken, refreshToken: old.refreshToken)
            #expect(session.user.id == old.user.id)
            #expect(session.accessToken == old.accessToken && session.refreshToken == old.refreshToken)
            #expect(try await server.refreshCount() == refreshesBefore, "no refresh was spent")
            #expect(try await app.storedRefreshToken() == old.refreshToken, "saved like a sign-in")
            #expect(try await manager.account.refreshUser().id == old.user.id, "an authorized call works")

            // A relaunch restores it from the store.
            let relaunched = app.launch()
            await relaunched.restore()
            let restored = await relaunched.currentSession
            #expect(restored?.user.id == old.user.id)
        }
    }

    @Test("an expired access token: one refresh, and the rotated session is what is saved")
    func expiredAccessToken() async throws {
        try await withTestServer { server in
            let (_, old) = try await E2EApp(server: server).signUp()
            let refreshesBefore = try await server.refreshCount()
            let app = E2EApp(server: server)
            app.clock.advance(by: 2 * 3600)  // the access token (one hour) has expired for this device
            let manager = app.launch()
            await manager.restore()
            let session = try await manager.account.importSession(accessToken: old.accessToken, refreshToken: old.refreshToken)
            #expect(session.user.id == old.user.id)
            #expect(session.refreshToken != old.refreshToken)
            #expect(try await server.refreshCount() == refreshesBefore + 1, "exactly one refresh")
            #expect(try await app.storedRefreshToken() == session.refreshToken)
        }
    }

    @Test("a session ended at the server: refused as revoked, nothing saved, still signed out")
    func endedSession() async throws {
        try await withTestServer { server in
            let (_, old) = try await E2EApp(server: server).signUp()
            try await server.logoutEverywhere(userID: old.user.id)
            let app = E2EApp(server: server)
            let manager = app.launch()
            await manager.restore()
            do {
                try await manager.account.importSession(accessToken: old.accessToken, refreshToken: old.refreshToken)
                Issue.record("an ended session must not be imported")
            } catch let failure as AuthFailure {
                #expect(failure.category == .sessionRevoked)
            }
            #expect(try await app.storedRefreshToken() == nil)
            let current = await manager.currentSession
            #expect(current == nil)
        }
    }
}
