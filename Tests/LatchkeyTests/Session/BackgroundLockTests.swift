import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether nobody holds the lock on `url` (briefly takes and drops it to find out).
func lockIsFree(_ url: URL) -> Bool {
    let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard descriptor >= 0 else { return true }
    defer { close(descriptor) }
    guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return false }
    _ = flock(descriptor, LOCK_UN)
    return true
}

/// The system's background-time assertions, as the test scripts them: granted or refused,
/// expired when the test says so. Records whether the lock file was free when each assertion
/// began and when it ended.
final class ScriptedActivity: BackgroundActivity, Sendable {
    struct State {
        var refuse = false
        /// The system's expiration handler runs before `begin` returns the assertion.
        var expireBeforeReturning = false
        var began = 0
        var ended = 0
        var lockFreeAtBegin: [Bool] = []
        var lockFreeAtEnd: [Bool] = []
        var running: [Int: @Sendable () -> Void] = [:]
        var expirations = 0
    }

    let lockURL: URL
    let state = Locked(State())

    init(lockURL: URL) {
        self.lockURL = lockURL
    }

    var began: Int { state.withLock { $0.began } }
    var ended: Int { state.withLock { $0.ended } }
    var running: Int { state.withLock { $0.running.count } }
    /// How many times ``expireAll()`` was called.
    var expirations: Int { state.withLock { $0.expirations } }
    var lockFreeAtBegin: [Bool] { state.withLock { $0.lockFreeAtBegin } }
    var lockFreeAtEnd: [Bool] { state.withLock { $0.lockFreeAtEnd } }
    func setRefuse(_ refuse: Bool) { state.withLock { $0.refuse = refuse } }
    func setExpireBeforeReturning(_ expire: Bool) { state.withLock { $0.expireBeforeReturning = expire } }

    func begin(name: String, expiration: @escaping @Sendable () -> Void) async -> (any BackgroundActivityAssertion)? {
        let free = lockIsFree(lockURL)
        let (assertion, expireNow) = state.withLock { state -> ((any BackgroundActivityAssertion)?, Bool) in
            state.lockFreeAtBegin.append(free)
            guard !state.refuse else { return (nil, false) }
            state.began += 1
            state.running[state.began] = expiration
            return (Assertion(id: state.began, owner: self), state.expireBeforeReturning)
        }
        if expireNow { expiration() }
        return assertion
    }

    /// The system is about to suspend the process: every running assertion expires.
    func expireAll() {
        let handlers = state.withLock { state in
            state.expirations += 1
            return Array(state.running.values)
        }
        for element in handlers { element() }
    }

    fileprivate func end(_ id: Int) {
        let free = lockIsFree(lockURL)
        state.withLock { state in
            guard state.running.removeValue(forKey: id) != nil else { return }
            state.ended += 1
            state.lockFreeAtEnd.append(free)
        }
    }

    struct Assertion: BackgroundActivityAssertion {
        let id: Int
        let owner: ScriptedActivity
        func end() { owner.end(id) }
    }
}

/// Runs `body` on a thread of its own, as the system runs an expiration handler (which blocks
/// its thread), and returns when it returns.
func onThreadOfItsOwn(_ body: @escaping @Sendable () -> Void) async {
    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
        Thread {
            body()
            continuation.resume()
        }.start()
    }
}

/// A store whose saves wait at a gate while the test holds it.
actor GatedStore: CredentialStore {
    let base = MemoryCredentialStore()
    let gate = Gate()
    /// Saves that completed.
    nonisolated let saves = Locked(0)

    func load(key: String) async throws -> Data? { try await base.load(key: key) }
    func save(_ data: Data, key: String) async throws {
        await gate.pass()
        try await base.save(data, key: key)
        saves.withLock { $0 += 1 }
    }
    func delete(key: String) async throws { try await base.delete(key: key) }
}

@Suite("The cross-process lock and the system's background time")
struct BackgroundLockTests {
    let directory = temporaryDirectory("background-lock")
    var lockURL: URL { directory.appendingPathComponent("shared/refresh.lock") }

    func harness(_ activity: ScriptedActivity, maximumHold: TimeInterval = 20) -> Harness {
        Harness {
            $0.automaticRefresh = false
            $0.crossProcessLockURL = lockURL
            $0.backgroundActivity = activity
            $0.crossProcessLockMaximumHold = maximumHold
        }
    }

    @Test("A refresh takes the lock only inside an assertion, and releases it before the assertion ends")
    func lockInsideAssertion() async throws {
        defer { removeDirectory(directory) }
        let activity = ScriptedActivity(lockURL: lockURL)
        let harness = harness(activity)
        _ = try await harness.seed(age: 3570)
        #expect(await harness.manager.restore().isSignedIn)
        harness.backend.holdRefreshes()
        let caller = Task { try await harness.manager.refresh() }
        #expect(await eventually { harness.backend.pendingRefreshCount == 1 })
        #expect(activity.running == 1, "the lock is held inside a running assertion")
        #expect(!lockIsFree(lockURL))
        harness.backend.releaseRefreshes()
        let fresh = try await caller.value
        #expect(activity.began == 1)
        #expect(activity.ended == 1)
        #expect(activity.lockFreeAtBegin == [true], "the assertion began before the lock was taken")
        #expect(activity.lockFreeAtEnd == [true], "the lock was released before the assertion ended")
        #expect(try await harness.stored()?.session.refreshToken == fresh.refreshToken)
    }

    @Test("When the assertion expires, the lock is released at once; the refresh then stores its result under the lock taken again")
    func expirationReleasesTheLock() async throws {
        defer { removeDirectory(directory) }
        let activity = ScriptedActivity(lockURL: lockURL)
        let harness = harness(activity)
        _ = try await harness.seed(age: 3570)
        await harness.manager.restore()
        harness.backend.holdRefreshes()
        let caller = Task { try await harness.manager.refresh() }
        #expect(await eventually { harness.backend.pendingRefreshCount == 1 })
        #expect(!lockIsFree(lockURL))

        activity.expireAll()  // the system is about to suspend the app
        #expect(lockIsFree(lockURL), "released before the expiration handler returned")
        #expect(activity.ended == 1)
        #expect(activity.lockFreeAtEnd == [true])

        harness.backend.releaseRefreshes()  // the app runs again; the server's answer arrives
        let fresh = try await caller.value
        #expect(activity.began == 2, "the result is stored inside a new assertion")
        #expect(activity.ended == 2)
        #expect(activity.lockFreeAtEnd == [true, true])
        #expect(try await harness.stored()?.session.refreshToken == fresh.refreshToken)
        #expect(await harness.manager.currentSession?.refreshToken == fresh.refreshToken)
        #expect(lockIsFree(lockURL))
    }

    @Test("The lock was given up and cannot be taken again: the refreshed session is stored anyway (the spent token must not stay)")
    func relockRefused() async throws {
        defer { removeDirectory(directory) }
        let activity = ScriptedActivity(lockURL: lockURL)
        let harness = harness(activity)
        _ = try await harness.seed(age: 3570)
        await harness.manager.restore()
        harness.backend.holdRefreshes()
        let caller = Task { try await harness.manager.refresh() }
        #expect(await eventually { harness.backend.pendingRefreshCount == 1 })
        activity.expireAll()
        activity.setRefuse(true)  // still no background time when the answer arrives
        harness.backend.releaseRefreshes()
        let fresh = try await caller.value
        #expect(try await harness.stored()?.session.refreshToken == fresh.refreshToken)
        #expect(activity.began == 1, "no lock without an assertion")
        #expect(lockIsFree(lockURL))
    }

    @Test("Time runs out before the assertion is handed over: that assertion is still ended, no lock is held, nothing is sent")
    func expiredBeforeAttached() async throws {
        defer { removeDirectory(directory) }
        let activity = ScriptedActivity(lockURL: lockURL)
        let harness = harness(activity)
        let seeded = try await harness.seed(age: 3570)
        await harness.manager.restore()
        activity.setExpireBeforeReturning(true)
        await #expect(throws: AuthFailure(.network, code: "lock_unavailable")) { try await harness.manager.refresh() }
        #expect(activity.began >= 1)
        #expect(activity.running == 0, "every assertion begun was ended (the system kills an app that does not)")
        #expect(activity.ended == activity.began)
        #expect(harness.backend.refreshCalls == 0)
        #expect(await harness.manager.state.isSignedIn)
        #expect(try await harness.stored()?.session.refreshToken == seeded.refreshToken)
        #expect(lockIsFree(lockURL))
    }

    @Test("No background time granted: no lock, nothing sent, the session is kept")
    func refused() async throws {
        defer { removeDirectory(directory) }
        let activity = ScriptedActivity(lockURL: lockURL)
        let harness = harness(activity)
        let seeded = try await harness.seed(age: 3570)
        await harness.manager.restore()
        activity.setRefuse(true)
        await #expect(throws: AuthFailure(.network, code: "lock_unavailable")) { try await harness.manager.refresh() }
        #expect(harness.backend.refreshCalls == 0)
        #expect(await harness.manager.state.isSignedIn)
        #expect(try await harness.stored()?.session.refreshToken == seeded.refreshToken)
        #expect(lockIsFree(lockURL))
    }

    @Test("The lock is held no longer than crossProcessLockMaximumHold")
    func holdBound() async throws {
        defer { removeDirectory(directory) }
        let activity = ScriptedActivity(lockURL: lockURL)
        let harness = harness(activity, maximumHold: 20)
        _ = try await harness.seed(age: 3570)
        await harness.manager.restore()
        harness.backend.holdRefreshes()
        let caller = Task { try await harness.manager.refresh() }
        #expect(await eventually { harness.backend.pendingRefreshCount == 1 })
        #expect(await eventually { harness.clock.sleeperCount >= 1 }, "the hold bound is armed")
        harness.clock.advance(by: 21)
        #expect(await eventually { lockIsFree(self.lockURL) })
        #expect(await eventually { activity.ended == 1 })
        harness.backend.releaseRefreshes()
        let fresh = try await caller.value
        #expect(try await harness.stored()?.session.refreshToken == fresh.refreshToken)
        #expect(activity.lockFreeAtEnd.allSatisfy { $0 })
    }

    /// A manager signing in through `store` (whose save the test holds), with the lock's
    /// expiration handler waiting at most `wait` seconds for a write.
    func expiringManager(_ activity: ScriptedActivity, _ store: GatedStore, wait: TimeInterval) -> SessionManager {
        var configuration = SessionManagerConfiguration()
        configuration.crossProcessLockURL = lockURL
        configuration.backgroundActivity = activity
        configuration.crossProcessLockExpirationWait = wait
        return SessionManager(
            backend: TestBackend(), store: store, configuration: configuration, clock: ManualSessionClock(), logger: .quiet)
    }

    @Test("An expiration during a store write waits for the write inside the handler, which returns with the lock released and the assertion ended")
    func expirationDuringWrite() async throws {
        defer { removeDirectory(directory) }
        let activity = ScriptedActivity(lockURL: lockURL)
        let store = GatedStore()
        let manager = expiringManager(activity, store, wait: 60)
        await manager.restore()
        store.gate.hold()
        let signIn = Task { try await manager.account.signIn(email: "ada@example.com", password: "correct horse") }
        #expect(await eventually { store.gate.waitingCount == 1 })
        #expect(!lockIsFree(lockURL))
        let returned = Locked<(lockFree: Bool, saves: Int, ended: Int)?>(nil)
        let handler = Task {
            await onThreadOfItsOwn {
                activity.expireAll()
                returned.withLock { $0 = (lockIsFree(lockURL), store.saves.withLock { $0 }, activity.ended) }
            }
        }
        #expect(await eventually { activity.expirations == 1 })
        #expect(returned.withLock { $0 } == nil, "the handler waits for the write")
        store.gate.release()
        await handler.value
        let atReturn = try #require(returned.withLock { $0 })
        #expect(atReturn.saves == 1, "the write finished before the handler returned")
        #expect(atReturn.lockFree, "the lock was released before the handler returned")
        #expect(atReturn.ended == 1, "the assertion ended before the handler returned")
        #expect(activity.lockFreeAtEnd == [true])
        _ = try await signIn.value
        #expect(try await store.base.load(key: "latchkey.session") != nil)
    }

    @Test("A write that outlasts the expiration wait: the handler still returns with the lock released, and the write completes without it")
    func expirationDuringSlowWrite() async throws {
        defer { removeDirectory(directory) }
        let activity = ScriptedActivity(lockURL: lockURL)
        let store = GatedStore()
        let manager = expiringManager(activity, store, wait: 0.2)
        await manager.restore()
        store.gate.hold()
        let signIn = Task { try await manager.account.signIn(email: "ada@example.com", password: "correct horse") }
        #expect(await eventually { store.gate.waitingCount == 1 })
        #expect(!lockIsFree(lockURL))
        let returned = Locked<(lockFree: Bool, saves: Int, ended: Int)?>(nil)
        await onThreadOfItsOwn {
            activity.expireAll()
            returned.withLock { $0 = (lockIsFree(lockURL), store.saves.withLock { $0 }, activity.ended) }
        }
        let atReturn = try #require(returned.withLock { $0 })
        #expect(atReturn.saves == 0, "the write was still held")
        #expect(atReturn.lockFree, "the lock is not held across the suspension")
        #expect(atReturn.ended == 1)
        #expect(activity.lockFreeAtEnd == [true])
        store.gate.release()
        let session = try await signIn.value
        #expect(try await store.base.load(key: "latchkey.session") != nil, "the write still completes")
        #expect(await manager.currentSession?.refreshToken == session.refreshToken)
        #expect(lockIsFree(lockURL))
    }
}
