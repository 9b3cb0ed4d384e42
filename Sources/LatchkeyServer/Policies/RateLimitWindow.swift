import Foundation

/// The sliding-window rules every ``RateLimitCounter`` applies, so that a limit answers the same
/// on one instance and on several.
///
/// A key's events are the instants it was counted, oldest first. An event is allowed when fewer
/// than the limit's count fall within its window before it, and (for emails) the newest is at
/// least the minimum interval old; a refusal says how many seconds, rounded up, until one would
/// be allowed.
enum RateLimitWindow {
    /// The events of `events` (oldest first) still within `window` seconds before `now`.
    static func recent(_ events: [Date], now: Date, window: TimeInterval) -> [Date] {
        let cutoff = now.addingTimeInterval(-window)
        guard let firstKept = events.firstIndex(where: { $0 > cutoff }) else { return [] }
        return firstKept == 0 ? events : Array(events[firstKept...])
    }

    /// The seconds until another event is allowed after `recent` (the events within the window,
    /// oldest first); `nil` when one is allowed at `now`.
    static func retryAfter(
        _ recent: [Date], now: Date, limit: RateLimitConfiguration.Limit, minimumInterval: TimeInterval = 0
    ) -> Int? {
        if let last = recent.last, minimumInterval > 0, now.timeIntervalSince(last) < minimumInterval {
            return Int((minimumInterval - now.timeIntervalSince(last)).rounded(.up))
        }
        if recent.count >= limit.count, let oldest = recent.first {
            return Int((limit.window - now.timeIntervalSince(oldest)).rounded(.up))
        }
        return nil
    }
}
