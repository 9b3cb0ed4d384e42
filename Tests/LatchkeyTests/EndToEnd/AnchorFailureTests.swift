import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// The failures the best-known auth SDKs' users report, reproduced against the real server to
/// show that Latchkey does not suffer them.
@Suite("End to end: known failures that must not happen")
struct AnchorFailureTests {
    @Test("1,000 concurrent session(minTTL:) callers → exactly one refresh reaches the server")
    func thousandCallers() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server) { $0.automaticRefresh = false }
            let (manager, _) = try await app.signUp()
            app.clock.advance(by: 3600 - 30)  // 30 s left; every caller wants 60
            let tokens = try await withThrowingTaskGroup(of: String.self) { group in
                for _ in 0..<1000 {
                    group.addTask { try await manager.session(minTTL: 60).accessToken }
                }
                return try await group.reduce(into: Set<String>()) { $0.insert($1) }
            }
            #expect(tokens.count == 1)
            #expect(app.transport.count("/token") == 1, "sign-up goes to /signup; the one refresh to /token")
            #expect(try await server.refreshCount() == 1)
        }
    }

    @Test("Two processes sharing a store and a lock file → one refresh, both signed in")
    func twoProcesses() async throws {
        try await withSharedInstallation { shared in
            let processes = try await shared.twoProcesses()
            let (appProcess, extensionProcess) = (processes.first, processes.second)
            let app = appProcess.launch()
            let widget = processes.secondManager
            #expect(await app.restore() == .signedIn(processes.session))

            appProcess.clock.advance(by: 2 * 3600)
            extensionProcess.clock.advance(by: 2 * 3600)
            async let fromApp = app.session()
            async let fromWidget = widget.session()
            let (a, b) = try await (fromApp, fromWidget)
            #expect(a.refreshToken == b.refreshToken, "the second process adopted the first one's refresh")
            #expect(try await shared.server.refreshCount() == 1)
            #expect(appProcess.transport.count("/token") + extensionProcess.transport.count("/token") == 1)
        }
    }

    @Test("Signing out in one process signs the other out at its next refresh (no token resurrected)")
    func signedOutElsewhere() async throws {
        try await withSharedInstallation { shared in
            let processes = try await shared.twoProcesses()
            let (extensionProcess, widget) = (processes.second, processes.secondManager)
            await processes.firstManager.signOut()
            extensionProcess.clock.advance(by: 2 * 3600)
            await #expect(throws: AuthFailure.self) { try await widget.session() }
            #expect(await widget.state == .signedOut(.signedOutElsewhere))
            #expect(extensionProcess.transport.count("/token") == 0, "it never spent the revoked token")
        }
    }

    @Test("A refresh cancelled mid-flight keeps the session; the next one succeeds (parent reuse)")
    func cancelledMidFlight() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server) { $0.automaticRefresh = false }
            let (manager, _) = try await app.signUp()
            app.clock.advance(by: 2 * 3600)
            app.transport.cancelAfterSending(refreshes: 1)
            await #expect(throws: AuthFailure(.network, code: "cancelled")) { try await manager.session() }
            #expect(await manager.state.isSignedIn, "cancelled is not signed out")
            #expect(try await app.storedRefreshToken() != nil)
            let session = try await manager.session()
            #expect(!session.isExpired(at: app.clock.now()))
            #expect(await manager.state.isSignedIn)
        }
    }

    @Test("Offline at launch → signed in offline with the cached user; online again → signed in")
    func offlineLaunch() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server) { $0.initialRetryDelay = 1 }
            let (_, session) = try await app.signUp()
            app.clock.advance(by: 2 * 3600)
            app.transport.setOffline(true)
            let manager = app.launch()
            let state = await manager.restore()
            #expect(state == .signedInOffline(session), "\(state)")
            #expect(state.session?.user.email == session.user.email)
            app.transport.setOffline(false)
            #expect(await eventually { app.clock.sleeperCount >= 1 })
            app.clock.advance(by: 1)
            #expect(await eventually { if case .signedIn = await manager.state { true } else { false } })
            #expect(try await server.refreshCount() == 1)
        }
    }

    @Test("Server gone (connection refused) → session kept, never signed out")
    func serverDown() async throws {
        let app: E2EApp
        let session: Session
        let directory = temporaryDirectory("server-down")
        defer { removeDirectory(directory) }
        let store = EncryptedFileCredentialStore(directory: directory, keySource: .keyFile(directory.appendingPathComponent(".key")))
        let server = try await TestServer.start()
        app = E2EApp(server: server, store: store) { $0.automaticRefresh = false }
        (_, session) = try await app.signUp()
        await server.stop()
        app.clock.advance(by: 2 * 3600)
        let state = await app.launch().restore()
        #expect(state == .signedInOffline(session))
        #expect(try await app.storedRefreshToken() == session.refreshToken)
    }

    @Test("Crash between the server's rotation and the store write → still signed in at next launch")
    func crashBeforeWrite() async throws {
        try await withTestServer { server in
            let base = MemoryCredentialStore()
            let crashing = FaultyStore(base: base)
            let before = E2EApp(server: server, store: crashing) { $0.automaticRefresh = false }
            let (manager, original) = try await before.signUp()
            await crashing.setDropWrites(true)  // the process dies before the rotated session lands
            before.clock.advance(by: 2 * 3600)
            let rotated = try await manager.session()
            #expect(rotated.refreshToken != original.refreshToken)
            #expect(try await before.storedRefreshToken() == original.refreshToken, "the store still has the parent")

            // Next launch (a few seconds later), from the parent token.
            let after = E2EApp(server: server, store: base, clock: before.clock)
            try await after.marker.set()
            let state = await after.launch().restore()
            #expect(state.isSignedIn, "\(state)")
            #expect(try await after.storedRefreshToken() != original.refreshToken)
        }
    }

    @Test("Corrupted store file → signed out with a storage error, no crash; signing in repairs it")
    func corruptedStore() async throws {
        try await withTestServer { server in
            let directory = temporaryDirectory("corrupt")
            defer { removeDirectory(directory) }
            let store = EncryptedFileCredentialStore(directory: directory, keySource: .keyFile(directory.appendingPathComponent(".key")))
            let app = E2EApp(server: server, store: store)
            let (manager, session) = try await app.signUp()
            var bytes = try Data(contentsOf: store.fileURL(for: "latchkey.session"))
            bytes[bytes.count / 2] ^= 0xFF
            try bytes.write(to: store.fileURL(for: "latchkey.session"))
            let state = await app.launch().restore()
            guard case .signedOut(.storageFailure(.corrupted)) = state else {
                Issue.record("expected a corrupted-store sign-out, got \(state)")
                return
            }
            await manager.signOut()
            let again = app.launch()
            await again.restore()
            try await again.account.signIn(email: try #require(session.user.email), password: "correct horse battery")
            #expect(await app.launch().restore().isSignedIn)
        }
    }

    @Test("Reinstall (marker wiped, keychain kept) → signed out, credentials wiped")
    func reinstall() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            _ = try await app.signUp()
            await app.marker.clear()  // the uninstall erased the app's preferences, not the keychain
            #expect(await app.launch().restore() == .signedOut(.staleInstall))
            #expect(try await app.storedRefreshToken() == nil)
            #expect(await app.launch().restore() == .signedOut(.noSession), "and the next launch is a normal one")
        }
    }

    @Test("Sign-out cleanup with one failing step → the others still run, the report names it, the server session ends")
    func signOutCleanup() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            let (manager, session) = try await app.signUp()
            let ran = LockedValue<[String]>([])
            struct DatabaseLocked: Error {}
            await manager.addCleanupStep("image cache") { ran.withLock { $0.append("image cache") } }
            await manager.addCleanupStep("local database") { throw DatabaseLocked() }
            await manager.addCleanupStep("presence listener") { ran.withLock { $0.append("presence listener") } }
            let report = await manager.signOut(scope: .global)
            #expect(ran.withLock { $0 } == ["image cache", "presence listener"])
            #expect(report.failedSteps.map(\.name) == ["local database"])
            #expect(report.server == .succeeded)
            #expect(try await app.storedRefreshToken() == nil)
            await #expect(throws: BackendError.self) { try await server.backend().refresh(refreshToken: session.refreshToken) }
        }
    }

    @Test("Sign-out is best effort on the server: already ended → fine; offline → reported; local wipe always")
    func signOutBestEffort() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            let (manager, session) = try await app.signUp()
            try await server.logoutEverywhere(userID: session.user.id)
            let ended = await manager.signOut()
            #expect(ended.server == .alreadyEnded, "\(ended.server)")
            #expect(try await app.storedRefreshToken() == nil)

            let again = try await manager.account.signIn(email: try #require(session.user.email), password: "correct horse battery")
            app.transport.setOffline(true)
            let offline = await manager.signOut()
            #expect(offline.server == .failed(AuthFailure(.network, code: "offline")))
            #expect(try await app.storedRefreshToken() == nil, "the local wipe happens offline too")
            #expect(await manager.currentSession == nil)
            app.transport.setOffline(false)
            _ = again
        }
    }

    @Test("Banned account → refresh signs out with userBanned; sign-in says 'Account disabled'")
    func banned() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server) { $0.automaticRefresh = false }
            let (manager, session) = try await app.signUp()
            try await server.ban(session.user.id)
            app.clock.advance(by: 2 * 3600)
            await #expect(throws: AuthFailure.self) { try await manager.session() }
            #expect(await manager.state == .signedOut(.userBanned))
            do {
                try await manager.account.signIn(email: try #require(session.user.email), password: "correct horse battery")
                Issue.record("a banned user must not sign in")
            } catch let failure as AuthFailure {
                #expect(failure.presentation.message == "Account disabled. Contact support")
            }
        }
    }
}
