import Foundation
import NIOConcurrencyHelpers

/// Counts events per key in sliding windows and says when a limit is reached.
///
/// Synchronous (a mutex, not an actor), so a check costs no suspension on the hot paths;
/// entries for quiet keys are dropped as they age out, so memory stays bounded by recent
/// activity. ``RateLimits`` names every limit the server applies.
final class RateLimiter: Sendable {
    private struct State {
        var events: [String: [Date]] = [:]
        var operations = 0
    }

    private let state = NIOLockedValueBox(State())
    private let clock: any ServerClock
    let enabled: Bool

    init(clock: any ServerClock, enabled: Bool) {
        self.clock = clock
        self.enabled = enabled
    }

    /// Records an event for `key` if the limit allows it.
    /// - Returns: `nil` when allowed, otherwise the seconds until an event would be allowed.
    /// - Parameter date: when the event happens; now by default.
    func consume(_ key: String, limit: RateLimitConfiguration.Limit, minimumInterval: TimeInterval = 0, at date: Date? = nil) -> Int? {
        guard enabled else { return nil }
        let now = date ?? clock.now()
        return state.withLockedValue { state in
            var recent = Self.prune(state.events[key] ?? [], now: now, window: limit.window)
            if let last = recent.last, minimumInterval > 0, now.timeIntervalSince(last) < minimumInterval {
                state.events[key] = recent
                return Int((minimumInterval - now.timeIntervalSince(last)).rounded(.up))
            }
            if recent.count >= limit.count, let oldest = recent.first {
                state.events[key] = recent
                return Int((limit.window - now.timeIntervalSince(oldest)).rounded(.up))
            }
            recent.append(now)
            state.events[key] = recent
            state.operations += 1
            if state.operations % 4096 == 0 {
                let cutoff = now.addingTimeInterval(-max(limit.window, 3600))
                state.events = state.events.filter { $0.value.last.map { $0 > cutoff } ?? false }
            }
            return nil
        }
    }

    /// The limiter's clock's now.
    func now() -> Date { clock.now() }

    /// Forgets one event of `key` recorded at `date` by ``consume(_:limit:minimumInterval:)``:
    /// the event it stood for did not happen after all (an email that could not be delivered).
    func unrecord(_ key: String, at date: Date) {
        guard enabled else { return }
        state.withLockedValue { state in
            guard var events = state.events[key], let index = events.lastIndex(of: date) else { return }
            events.remove(at: index)
            state.events[key] = events.isEmpty ? nil : events
        }
    }

    /// Whether `key` is at its limit, without recording anything.
    func check(_ key: String, limit: RateLimitConfiguration.Limit) -> Int? {
        guard enabled else { return nil }
        let now = clock.now()
        return state.withLockedValue { state in
            let recent = Self.prune(state.events[key] ?? [], now: now, window: limit.window)
            state.events[key] = recent.isEmpty ? nil : recent
            guard recent.count >= limit.count, let oldest = recent.first else { return nil }
            return Int((limit.window - now.timeIntervalSince(oldest)).rounded(.up))
        }
    }

    /// Records an event without checking (e.g. a failed password attempt).
    func record(_ key: String, limit: RateLimitConfiguration.Limit) {
        guard enabled else { return }
        let now = clock.now()
        state.withLockedValue { state in
            var recent = Self.prune(state.events[key] ?? [], now: now, window: limit.window)
            recent.append(now)
            state.events[key] = recent
        }
    }

    /// Forgets `key` (e.g. failed attempts after a successful sign-in).
    func reset(_ key: String) {
        state.withLockedValue { _ = $0.events.removeValue(forKey: key) }
    }

    private static func prune(_ events: [Date], now: Date, window: TimeInterval) -> [Date] {
        let cutoff = now.addingTimeInterval(-window)
        guard let firstKept = events.firstIndex(where: { $0 > cutoff }) else { return [] }
        return firstKept == 0 ? events : Array(events[firstKept...])
    }
}
