import Foundation

/// RFC 3339 timestamps with microseconds in UTC, as GoTrue writes them
/// (`2024-05-01T12:34:56.789012Z`).
enum WireDate {
    static func string(_ date: Date) -> String {
        let seconds = date.timeIntervalSince1970
        let whole = floor(seconds)
        let micros = Int(((seconds - whole) * 1_000_000).rounded()) % 1_000_000
        var time = time_t(whole)
        var parts = tm()
        gmtime_r(&time, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, width - text.count)) + text
        }
        let micro = String(micros)
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))."
            + String(repeating: "0", count: 6 - micro.count) + micro + "Z"
    }
}
