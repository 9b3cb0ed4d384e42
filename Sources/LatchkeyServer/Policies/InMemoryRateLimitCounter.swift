import Foundation
import NIOConcurrencyHelpers

/// Counts rate-limit events in this process: the counter of a single instance (SQLite).
///
/// Synchronous inside (a mutex, not an actor), so counting costs no suspension on the hot
/// paths; entries for quiet keys are dropped as they age out, so memory stays bounded by recent
/// activity. With several instances each would count on its own: they use
/// ``PostgresRateLimitCounter`` instead.
final class InMemoryRateLimitCounter: RateLimitCounter {
    private struct State {
        var events: [String: [Date]] = [:]
        var operations = 0
    }

    private let state = NIOLockedValueBox(State())

    init() {}

    func consume(_ key: String, limit: RateLimitConfiguration.Limit, minimumInterval: TimeInterval, at now: Date) -> Int? {
        state.withLockedValue { state in
            var recent = RateLimitWindow.recent(state.events[key] ?? [], now: now, window: limit.window)
            if let retryAfter = RateLimitWindow.retryAfter(recent, now: now, limit: limit, minimumInterval: minimumInterval) {
                state.events[key] = recent
                return retryAfter
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

    func unrecord(_ key: String, at date: Date) {
        state.withLockedValue { state in
            guard var events = state.events[key], let index = events.lastIndex(of: date) else { return }
            events.remove(at: index)
            state.events[key] = events.isEmpty ? nil : events
        }
    }

    func check(_ key: String, limit: RateLimitConfiguration.Limit, at now: Date) -> Int? {
        state.withLockedValue { state in
            let recent = RateLimitWindow.recent(state.events[key] ?? [], now: now, window: limit.window)
            state.events[key] = recent.isEmpty ? nil : recent
            return RateLimitWindow.retryAfter(recent, now: now, limit: limit)
        }
    }

    func record(_ key: String, limit: RateLimitConfiguration.Limit, at now: Date) {
        state.withLockedValue { state in
            var recent = RateLimitWindow.recent(state.events[key] ?? [], now: now, window: limit.window)
            recent.append(now)
            state.events[key] = recent
        }
    }

    func reset(_ key: String) {
        state.withLockedValue { _ = $0.events.removeValue(forKey: key) }
    }
}
