import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// A device that sleeps (or an app that iOS suspends) runs no timers, and a suspended monotonic
/// clock does not count the time asleep: deadlines are wall-clock dates and must be checked
/// against the wall clock again.
@Suite("Timers across device sleep")
struct ClockJumpTests {
    struct Sleeper {
        let backend = TestBackend()
        let clock = SleepingDeviceClock(Date(timeIntervalSince1970: 1_750_000_000))
        let store = MemoryCredentialStore()
        let manager: SessionManager

        init(configure: (inout SessionManagerConfiguration) -> Void = { _ in }) {
            var configuration = SessionManagerConfiguration()
            configure(&configuration)
            manager = SessionManager(backend: backend, store: store, configuration: configuration, clock: clock, logger: .quiet)
        }

        /// Stores a session signed in `age` seconds ago whose token was issued `tokenAge` ago.
        func seed(age: TimeInterval, tokenAge: TimeInterval = 0, expiresIn: TimeInterval = 3600) async throws {
            let session = sampleSession(issuedAt: clock.now().addingTimeInterval(-tokenAge), expiresIn: expiresIn)
            try await storeSession(session, in: store, signedInAt: clock.now().addingTimeInterval(-age))
        }
    }

    @Test("The maximum session age holds after the device slept through it: checked on becoming active")
    func maximumAgeAfterSleep() async throws {
        let device = Sleeper { $0.maximumSessionAge = 2 * 3600 }
        try await device.seed(age: 3600)
        #expect(await device.manager.restore().isSignedIn)
        #expect(await eventually { device.clock.sleeperCount >= 2 }, "refresh and age timers armed")
        await device.manager.setPhase(.background)
        device.clock.sleepDevice(for: 3 * 3600)  // the age timer never fired: its clock did not move
        await device.manager.setPhase(.active)
        #expect(await device.manager.state == .signedOut(.maximumSessionAgeExceeded))
        #expect(device.backend.refreshCalls == 0, "no refresh of a session that is over")
    }

    @Test("The age timer is re-armed from the wall clock after a short sleep")
    func ageTimerRearmed() async throws {
        let device = Sleeper {
            $0.maximumSessionAge = 2 * 3600
            $0.automaticRefresh = false
        }
        try await device.seed(age: 3600)
        #expect(await device.manager.restore().isSignedIn)
        let events = EventRecorder(device.manager)
        await device.manager.setPhase(.background)
        device.clock.sleepDevice(for: 50 * 60)  // 10 minutes left by the wall clock
        await device.manager.setPhase(.active)
        #expect(await eventually { device.clock.sleeperCount >= 1 })
        device.clock.advance(by: 6 * 60)  // past the warning (5 minutes before the end)
        #expect(await events.wait { $0.contains { $0.isSessionExpiring } })
        device.clock.advance(by: 5 * 60)
        #expect(await eventually { await device.manager.state == .signedOut(.maximumSessionAgeExceeded) })
    }

    @Test("A refresh that fell due while the device slept runs on becoming active")
    func refreshDueAfterSleep() async throws {
        let device = Sleeper()
        try await device.seed(age: 600, tokenAge: 600)
        #expect(await device.manager.restore().isSignedIn)
        await device.manager.setPhase(.background)
        // The token expires 50 minutes from now; the refresh is due 5 minutes before that.
        device.clock.sleepDevice(for: 47 * 60)  // asleep past the due time, not past expiry
        await device.manager.setPhase(.active)
        #expect(await eventually { device.backend.refreshCalls == 1 })
        #expect(await eventually { await device.manager.currentSession?.accessToken == "access-1" })
    }

    @Test("A Mac that slept while the app stayed active: waking runs the refresh that fell due")
    func wakeRunsDueRefresh() async throws {
        let device = Sleeper()
        try await device.seed(age: 600, tokenAge: 600)
        #expect(await device.manager.restore().isSignedIn)
        device.clock.sleepDevice(for: 47 * 60)  // active all along; past the refresh's due time
        #expect(device.backend.refreshCalls == 0, "the timer's clock did not count the sleep")
        await device.manager.systemDidWake()
        #expect(await eventually { device.backend.refreshCalls == 1 })
        #expect(await eventually { await device.manager.currentSession?.accessToken == "access-1" })
    }

    @Test("Waking after a long sleep revalidates with the server; after the maximum age, the session ends")
    func wakeAfterLongSleep() async throws {
        let device = Sleeper { $0.maximumSessionAge = 30 * 24 * 3600 }
        try await device.seed(age: 600, expiresIn: 24 * 3600)
        #expect(await device.manager.restore().isSignedIn)
        device.clock.sleepDevice(for: 2 * 3600)  // token still valid, server not heard from for 2 h
        await device.manager.systemDidWake()
        #expect(device.backend.refreshCalls == 1, "revalidated")
        #expect(device.backend.userCalls >= 1, "the user re-fetched")

        device.clock.sleepDevice(for: 31 * 24 * 3600)
        await device.manager.systemDidWake()
        #expect(await device.manager.state == .signedOut(.maximumSessionAgeExceeded))
    }

    @Test("Where background processes keep running (macOS: a minimized window), the proactive refresh does too")
    func refreshesInBackground() async throws {
        let mac = Sleeper { $0.refreshesInBackground = true }
        try await mac.seed(age: 600, tokenAge: 600)
        #expect(await mac.manager.restore().isSignedIn)
        await mac.manager.setPhase(.background)  // the only window minimized
        #expect(await eventually { mac.clock.sleeperCount == 1 }, "the refresh timer still armed")
        mac.clock.advance(by: 46 * 60)
        #expect(await eventually { mac.backend.refreshCalls == 1 })

        let phone = Sleeper { $0.refreshesInBackground = false }
        try await phone.seed(age: 600, tokenAge: 600)
        #expect(await phone.manager.restore().isSignedIn)
        await phone.manager.setPhase(.background)
        phone.clock.advance(by: 46 * 60)
        await phone.manager.setPhase(.background)  // an actor round trip after the advance
        #expect(phone.backend.refreshCalls == 0, "paused: the process is about to be suspended")
    }

    @Test("The system clock waits in steps on a clock that counts sleep, and notices a jump within one step")
    func systemClockSteps() async throws {
        let start = Date(timeIntervalSince1970: 1_750_000_000)
        let now = Locked(start)
        let waits = Locked<[TimeInterval]>([])
        try await SystemSessionClock.sleep(
            until: start.addingTimeInterval(600), maximumStep: 60, now: { now.withLock { $0 } }
        ) { seconds in
            waits.withLock { $0.append(seconds) }
            now.withLock { $0 = $0.addingTimeInterval(seconds) }
            if waits.withLock({ $0.count }) == 2 {
                now.withLock { $0 = $0.addingTimeInterval(3600) }  // the device slept for an hour
            }
        }
        #expect(waits.withLock { $0 } == [60, 60], "back after the step in which the deadline passed, not 480 s later")

        let short = Locked<[TimeInterval]>([])
        let shortNow = Locked(start)
        try await SystemSessionClock.sleep(until: start.addingTimeInterval(25), maximumStep: 60, now: { shortNow.withLock { $0 } }) { seconds in
            short.withLock { $0.append(seconds) }
            shortNow.withLock { $0 = $0.addingTimeInterval(seconds) }
        }
        #expect(short.withLock { $0 } == [25], "a deadline within one step: one wait")
    }

    @Test("The system clock returns at once for a past deadline and throws when cancelled")
    func systemClockEdges() async throws {
        try await SystemSessionClock().sleep(until: Date().addingTimeInterval(-1))
        let task = Task { try await SystemSessionClock().sleep(until: Date().addingTimeInterval(3600)) }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }
}
