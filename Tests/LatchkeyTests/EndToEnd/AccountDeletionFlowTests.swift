import Foundation
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// `manager.account.delete(reauthentication:)` against the real server in process, with
/// `--allow-self-deletion`.
@Suite("End to end: deleting the account", .timeLimit(.minutes(5)))
struct AccountDeletionFlowTests {
    @Test("Reauthenticate, delete: the account is gone on the server, the local session wiped through the sign-out cleanup")
    func deleteWithNonce() async throws {
        try await withTestServer(configure: { $0.allowSelfDeletion = true }) { server in
            let app = E2EApp(server: server)
            let (manager, session) = try await app.signUp()
            let email = try #require(session.user.email)
            let cleaned = Locked(0)
            await manager.addCleanupStep("user data") { cleaned.withLock { $0 += 1 } }

            await #expect(throws: AuthFailure.self, "the session alone is not enough") {
                try await manager.account.delete(reauthentication: .sessionOnly)
            }
            #expect(await manager.state.isSignedIn, "a refused deletion signs nobody out")
            #expect(cleaned.withLock { $0 } == 0)

            try await manager.account.reauthenticate()
            let nonce = try server.server.emailCode(to: email)
            try await manager.account.delete(reauthentication: .nonce(nonce))

            #expect(await manager.state == .signedOut(.userDeleted))
            #expect(try await app.store.load(key: "latchkey.session") == nil, "the stored session is wiped")
            #expect(cleaned.withLock { $0 } == 1, "the app's cleanup ran")
            let (status, _) = try await server.admin("GET", "admin/users/\(session.user.id)")
            #expect(status == 404, "the account is gone on the server")
            await #expect(throws: AuthFailure.self) {
                try await manager.account.signIn(email: email, password: "correct horse battery")
            }
        }
    }

    @Test("A server without account deletion: a clear failure, nothing signed out")
    func serverWithoutDeletion() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            let (manager, _) = try await app.signUp()
            await #expect(throws: AuthFailure.self) { try await manager.account.delete(reauthentication: .nonce("123456")) }
            #expect(await manager.state.isSignedIn)
        }
    }
}
