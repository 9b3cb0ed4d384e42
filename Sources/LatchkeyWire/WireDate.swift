import Foundation

/// The RFC 3339 timestamps of GoTrue's wire format: UTC with microseconds, such as
/// `2024-05-01T12:34:56.789012Z`.
///
/// ``format(_:)`` writes them as GoTrue does. ``parse(_:)`` accepts a `T` or a space between date and time, any number of fractional-second
/// digits (GoTrue sends microseconds; `ISO8601DateFormatter` rejects more than three on some
/// platforms), and `Z`, `+HH:MM`, `+HHMM` or `+HH` offsets. It is `Sendable` by construction,
/// unlike the Foundation formatters.
public enum WireDate {
    /// Parses `string`, or returns `nil` when it is not an RFC 3339 timestamp.
    public static func parse(_ string: String) -> Date? {
        let bytes = Array(string.utf8)
        var index = 0

        func number(_ digits: Int) -> Int? {
            guard index + digits <= bytes.count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let byte = bytes[index]
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
                index += 1
            }
            return value
        }
        func expect(_ characters: UInt8...) -> Bool {
            guard index < bytes.count, characters.contains(bytes[index]) else { return false }
            index += 1
            return true
        }

        guard let year = number(4), expect(45), let month = number(2), expect(45),
            let day = number(2), expect(84, 116, 32),
            let hour = number(2), expect(58), let minute = number(2), expect(58),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second <= 60
        else { return nil }

        var fraction = 0.0
        if index < bytes.count, bytes[index] == 46 {  // "."
            index += 1
            var scale = 0.1
            var sawDigit = false
            while index < bytes.count, bytes[index] >= 48, bytes[index] <= 57 {
                fraction += Double(bytes[index] - 48) * scale
                scale /= 10
                index += 1
                sawDigit = true
            }
            guard sawDigit else { return nil }
        }

        var offsetSeconds = 0
        if index < bytes.count {
            switch bytes[index] {
            case 90, 122:  // "Z", "z"
                index += 1
            case 43, 45:  // "+", "-"
                let sign = bytes[index] == 45 ? -1 : 1
                index += 1
                guard let offsetHours = number(2) else { return nil }
                var offsetMinutes = 0
                if index < bytes.count {
                    _ = expect(58)
                    guard let minutes = number(2) else { return nil }
                    offsetMinutes = minutes
                }
                offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
            default:
                return nil
            }
        }
        guard index == bytes.count else { return nil }

        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// Formats `date` as UTC with microsecond precision, e.g. `2024-05-01T12:00:00.250000Z`.
    public static func format(_ date: Date) -> String {
        let totalMicroseconds = Int64((date.timeIntervalSince1970 * 1_000_000).rounded())
        let micros = Int(((totalMicroseconds % 1_000_000) + 1_000_000) % 1_000_000)
        let totalSeconds = Int((totalMicroseconds - Int64(micros)) / 1_000_000)
        var days = totalSeconds / 86_400
        var secondsOfDay = totalSeconds % 86_400
        if secondsOfDay < 0 {
            secondsOfDay += 86_400
            days -= 1
        }
        let (year, month, day) = civilFromDays(days)
        guard (0...9999).contains(year) else {
            return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2) + "T" + pad(secondsOfDay / 3600, 2) + ":"
                + pad((secondsOfDay % 3600) / 60, 2) + ":" + pad(secondsOfDay % 60, 2) + "." + pad(micros, 6) + "Z"
        }
        // The usual case written byte by byte into one string: every user answer carries
        // several timestamps.
        return String(unsafeUninitializedCapacity: 27) { buffer in
            var index = 0
            func put(_ value: Int, _ width: Int) {
                var value = value
                for offset in stride(from: width - 1, through: 0, by: -1) {
                    buffer[index + offset] = UInt8(48 + value % 10)
                    value /= 10
                }
                index += width
            }
            func put(_ byte: Unicode.Scalar) {
                buffer[index] = UInt8(ascii: byte)
                index += 1
            }
            put(year, 4)
            put("-")
            put(month, 2)
            put("-")
            put(day, 2)
            put("T")
            put(secondsOfDay / 3600, 2)
            put(":")
            put((secondsOfDay % 3600) / 60, 2)
            put(":")
            put(secondsOfDay % 60, 2)
            put(".")
            put(micros, 6)
            put("Z")
            return index
        }
    }

    private static func pad(_ value: Int, _ width: Int) -> String {
        let text = String(value)
        return text.count >= width ? text : String(repeating: "0", count: width - text.count) + text
    }

    /// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func civilFromDays(_ days: Int) -> (Int, Int, Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension JSONDecoder.DateDecodingStrategy {
    /// GoTrue timestamps: RFC 3339 with or without fractional seconds (``WireDate/parse(_:)``).
    public static var goTrue: JSONDecoder.DateDecodingStrategy {
        .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = WireDate.parse(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "Not an RFC 3339 timestamp")
            }
            return date
        }
    }
}

extension JSONEncoder.DateEncodingStrategy {
    /// GoTrue timestamps: RFC 3339 UTC with microseconds (``WireDate/format(_:)``).
    public static var goTrue: JSONEncoder.DateEncodingStrategy {
        .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(WireDate.format(date))
        }
    }
}
