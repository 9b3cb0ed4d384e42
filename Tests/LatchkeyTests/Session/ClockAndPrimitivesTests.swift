import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

@Suite("Manual clock, async mutex, event fan-out")
struct ClockAndPrimitivesTests {
    @Test("Sleepers wake in deadline order once the clock reaches them; past deadlines return at once")
    func manualClock() async throws {
        let clock = ManualSessionClock(Date(timeIntervalSince1970: 0))
        let woken = LockedValue<[Int]>([])
        let late = Task {
            try await clock.sleep(until: Date(timeIntervalSince1970: 20))
            woken.withLock { $0.append(20) }
        }
        let early = Task {
            try await clock.sleep(until: Date(timeIntervalSince1970: 10))
            woken.withLock { $0.append(10) }
        }
        #expect(await eventually { clock.sleeperCount == 2 })
        clock.advance(by: 9)
        try await Task.sleep(nanoseconds: 10_000_000)
        #expect(woken.withLock { $0 }.isEmpty)
        clock.advance(by: 1)
        try await early.value
        #expect(woken.withLock { $0 } == [10])
        clock.advance(by: 10)
        try await late.value
        #expect(woken.withLock { $0 } == [10, 20])
        try await clock.sleep(until: Date(timeIntervalSince1970: 5))  // in the past
    }

    @Test("Cancelling a sleeper throws CancellationError and unregisters it")
    func cancelledSleep() async throws {
        let clock = ManualSessionClock()
        let sleeper = Task { try await clock.sleep(until: clock.now().addingTimeInterval(60)) }
        #expect(await eventually { clock.sleeperCount == 1 })
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("The async mutex admits one holder at a time, in arrival order")
    func mutex() async throws {
        let mutex = AsyncMutex()
        let inside = LockedValue(0)
        let maximum = LockedValue(0)
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<50 {
                group.addTask {
                    await mutex.lock()
                    let now = inside.withLock {
                        $0 += 1
                        return $0
                    }
                    maximum.withLock { $0 = max($0, now) }
                    try? await Task.sleep(nanoseconds: 100_000)
                    inside.withLock { $0 -= 1 }
                    mutex.unlock()
                }
            }
        }
        #expect(maximum.withLock { $0 } == 1)
    }

    @Test("Subscribers that stop listening are dropped")
    func broadcasterUnsubscribe() async throws {
        let broadcaster = EventBroadcaster()
        var stream: AsyncStream<SessionEvent>? = broadcaster.subscribe()
        #expect(broadcaster.subscriberCount == 1)
        _ = stream
        stream = nil
        #expect(await eventually { broadcaster.subscriberCount == 0 })
    }
}
