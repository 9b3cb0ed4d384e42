import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

@Suite("Sign-in, sign-out and events")
struct AccountAndEventsTests {
    @Test("Concurrent identical sign-ins (a double tap) make one request")
    func coalescedSignIn() async throws {
        let harness = Harness()
        await harness.manager.restore()
        let sessions = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<20 {
                group.addTask { try await harness.manager.account.signIn(email: "ada@example.com", password: "correct horse").accessToken }
            }
            return try await group.reduce(into: Set<String>()) { $0.insert($1) }
        }
        #expect(harness.backend.signInCalls == 1)
        #expect(sessions.count == 1)
        #expect(try await harness.stored()?.session.accessToken == sessions.first)
    }

    @Test("A wrong password is an invalidCredentials failure with the seeds' message, state unchanged")
    func wrongPassword() async throws {
        let harness = Harness()
        await harness.manager.restore()
        do {
            try await harness.manager.account.signIn(email: "ada@example.com", password: "nope")
            Issue.record("expected failure")
        } catch let failure as AuthFailure {
            #expect(failure.category == .invalidCredentials)
            #expect(failure.presentation.message == "Incorrect email or password. Try 'Forgot Password?'")
        }
        #expect(await harness.manager.state == .signedOut(.noSession))
    }

    @Test("Every subscriber gets every event; a late one starts with initialSession")
    func events() async throws {
        let harness = Harness()
        let early1 = EventRecorder(harness.manager)
        let early2 = EventRecorder(harness.manager)
        await harness.manager.restore()
        try await harness.manager.account.signIn(email: "ada@example.com", password: "correct horse")
        let late = EventRecorder(harness.manager)
        try await harness.manager.refresh()
        await harness.manager.signOut()
        for recorder in [early1, early2] {
            #expect(await recorder.wait { $0.count >= 4 })
            let events = recorder.all
            #expect(events.first == .initialSession(nil))
            #expect(events.contains { $0.isSignedIn })
            #expect(events.contains { $0.isTokenRefreshed })
            #expect(events.last == .signedOut(.userInitiated))
        }
        #expect(await late.wait { $0.count >= 3 })
        #expect(late.all.first?.isInitialSession == true)
        #expect(late.all.first != .initialSession(nil))
    }

    @Test("Sign-out: local wipe always; every cleanup step runs; the report names the failure")
    func signOutCleanup() async throws {
        let harness = Harness()
        await harness.manager.restore()
        try await harness.manager.account.signIn(email: "ada@example.com", password: "correct horse")
        let ran = LockedValue<[String]>([])
        struct CacheError: Error {}
        await harness.manager.addCleanupStep("images") { ran.withLock { $0.append("images") } }
        await harness.manager.addCleanupStep("database") {
            ran.withLock { $0.append("database") }
            throw CacheError()
        }
        await harness.manager.addCleanupStep("listeners") { ran.withLock { $0.append("listeners") } }
        let report = await harness.manager.signOut(scope: .global)
        #expect(ran.withLock { $0 } == ["images", "database", "listeners"])
        #expect(report.completedSteps == ["images", "listeners"])
        #expect(report.failedSteps.map(\.name) == ["database"])
        #expect(report.server == .succeeded)
        #expect(!report.isComplete)
        #expect(harness.backend.state.withLock { $0.signOutCalls } == [.global])
        #expect(try await harness.stored() == nil)
        #expect(await harness.manager.currentSession == nil)
        #expect(await harness.manager.state == .signedOut(.userInitiated))
    }

    @Test("A sign-in during a slow cleanup waits for it; a step may use the manager without deadlock")
    func signInWaitsForCleanup() async throws {
        let harness = Harness()
        await harness.manager.restore()
        try await harness.manager.account.signIn(email: "ada@example.com", password: "correct horse")
        let order = LockedValue<[String]>([])
        let manager = harness.manager
        await manager.addCleanupStep("slow database wipe") {
            _ = await manager.state  // reading the manager from a step is fine
            try await Task.sleep(nanoseconds: 100_000_000)
            order.withLock { $0.append("cleanup done") }
        }
        let signOut = Task { await manager.signOut() }
        #expect(await eventually { await manager.currentSession == nil })
        try await manager.account.signIn(email: "ada@example.com", password: "correct horse")
        order.withLock { $0.append("signed in") }
        _ = await signOut.value
        #expect(order.withLock { $0 } == ["cleanup done", "signed in"])
        #expect(await manager.state.isSignedIn)
        #expect(try await harness.stored() != nil)
    }

    @Test("Sign-out when the store cannot delete: memory is still wiped and the report says so")
    func signOutStoreFailure() async throws {
        let harness = Harness()
        await harness.manager.restore()
        try await harness.manager.account.signIn(email: "ada@example.com", password: "correct horse")
        struct Broken: CredentialStore {
            func load(key: String) async throws -> Data? { nil }
            func save(_ data: Data, key: String) async throws {}
            func delete(key: String) async throws { throw StorageError.locked }
        }
        let manager = SessionManager(backend: harness.backend, store: Broken(), clock: harness.clock, logger: .quiet)
        await manager.restore()
        try await manager.account.signIn(email: "ada@example.com", password: "correct horse")
        let report = await manager.signOut()
        #expect(report.storageError == .locked)
        #expect(await manager.currentSession == nil)
    }

    @Test("Signing in as another account runs the cleanup steps first")
    func accountSwitch() async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 0)
        let cleaned = LockedValue(0)
        await harness.manager.addCleanupStep("per-user data") { cleaned.withLock { $0 += 1 } }
        await harness.manager.restore()
        try await harness.manager.account.signIn(email: "ada@example.com", password: "correct horse")
        #expect(cleaned.withLock { $0 } == 0, "same user: nothing to clean")
        harness.backend.state.withLock { _ = $0 }
        struct OtherUser: AuthBackend {
            let base: TestBackend
            func signUp(email: String, password: String, data: [String: JSONValue]) async throws -> SignUpResult {
                try await base.signUp(email: email, password: password, data: data)
            }
            func signIn(email: String, password: String) async throws -> Session {
                sampleSession(issuedAt: Date(), access: "grace-access", refresh: "grace-refresh", userID: "other-user")
            }
            func refresh(refreshToken: String) async throws -> Session { try await base.refresh(refreshToken: refreshToken) }
            func signOut(accessToken: String, scope: SignOutScope) async throws {}
            func user(accessToken: String) async throws -> User { try await base.user(accessToken: accessToken) }
            func updateUser(accessToken: String, _ update: UserUpdate) async throws -> User {
                try await base.updateUser(accessToken: accessToken, update)
            }
            func resendConfirmation(email: String) async throws {}
            func recoverPassword(email: String) async throws {}
            func verify(type: VerificationType, email: String, token: String) async throws -> Session {
                try await base.verify(type: type, email: email, token: token)
            }
        }
        let manager = SessionManager(backend: OtherUser(base: harness.backend), store: harness.store, clock: harness.clock, logger: .quiet)
        await manager.addCleanupStep("per-user data") { cleaned.withLock { $0 += 1 } }
        #expect(await manager.restore().isSignedIn)
        try await manager.account.signIn(email: "grace@example.com", password: "x")
        #expect(cleaned.withLock { $0 } == 1)
    }

    @Test("Updating the user stores and announces the new profile")
    func updateUser() async throws {
        let harness = Harness()
        _ = try await harness.seed(age: 0)
        await harness.manager.restore()
        let events = EventRecorder(harness.manager)
        let user = try await harness.manager.account.update(UserUpdate(data: ["display_name": .string("Ada L.")]))
        #expect(user.userMetadata["display_name"] == .string("Ada L."))
        #expect(await events.wait { $0.contains(.userUpdated(user)) })
        #expect(try await harness.stored()?.session.user.userMetadata["display_name"] == .string("Ada L."))
    }

    @Test("Without restore or sign-in, session() throws notSignedIn")
    func notSignedIn() async {
        let harness = Harness()
        await #expect(throws: AuthFailure(.notSignedIn)) { try await harness.manager.session() }
    }
}
