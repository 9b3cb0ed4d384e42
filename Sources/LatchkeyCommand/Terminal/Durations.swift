import Foundation

/// Short human durations: "45 s", "12 min", "3 h 5 min", "2 days".
enum Durations {
    /// `seconds` in words, rounded down to the largest sensible units.
    static func spoken(_ seconds: TimeInterval) -> String {
        let total = Int(max(0, seconds).rounded(.down))
        switch total {
        case ..<60: return "\(total) s"
        case ..<3600: return "\(total / 60) min"
        case ..<86_400:
            let minutes = (total % 3600) / 60
            return minutes == 0 ? "\(total / 3600) h" : "\(total / 3600) h \(minutes) min"
        default:
            let days = total / 86_400
            return days == 1 ? "1 day" : "\(days) days"
        }
    }

    /// "in 45 s" for a future date, "expired 3 min ago" style for a past one.
    static func relative(_ date: Date, now: Date) -> String {
        let delta = date.timeIntervalSince(now)
        return delta >= 0 ? "in \(spoken(delta))" : "\(spoken(-delta)) ago"
    }

    /// An ISO 8601 timestamp, UTC, whole seconds.
    static func timestamp(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.string(from: date)
    }
}
