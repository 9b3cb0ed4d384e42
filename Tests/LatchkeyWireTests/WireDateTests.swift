import Foundation
import LatchkeyWire
import Testing

@Suite("RFC 3339 timestamps")
struct WireDateTests {
    @Test(arguments: [
        ("2025-06-15T15:06:40Z", 1_750_000_000.0),
        ("2025-06-15T15:06:40.250Z", 1_750_000_000.25),
        ("2025-06-15T15:06:40.123456789Z", 1_750_000_000.123456789),
        ("2025-06-15T17:06:40+02:00", 1_750_000_000.0),
        ("2025-06-15T10:06:40-0500", 1_750_000_000.0),
        ("2025-06-15 15:06:40+00", 1_750_000_000.0),
        ("2025-06-15T15:06:40", 1_750_000_000.0),
        ("1970-01-01T00:00:00Z", 0.0),
        ("2000-02-29T00:00:00Z", 951_782_400.0),
    ])
    func parses(text: String, expected: Double) throws {
        let date = try #require(WireDate.parse(text))
        #expect(abs(date.timeIntervalSince1970 - expected) < 0.000_001)
    }

    @Test(arguments: ["", "2025-06-15", "2025-13-01T00:00:00Z", "2025-06-15T15:06:40.Z", "2025-06-15T15:06:40Zjunk", "yesterday"])
    func rejects(text: String) {
        #expect(WireDate.parse(text) == nil)
    }

    @Test("formats as GoTrue does: UTC with six fraction digits")
    func formatsLikeGoTrue() {
        #expect(WireDate.format(Date(timeIntervalSince1970: 1_750_000_000)) == "2025-06-15T15:06:40.000000Z")
        #expect(WireDate.format(Date(timeIntervalSince1970: 1_750_000_000.123456)) == "2025-06-15T15:06:40.123456Z")
        #expect(WireDate.format(Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00.000000Z")
        #expect(WireDate.format(Date(timeIntervalSince1970: -0.5)) == "1969-12-31T23:59:59.500000Z")
    }

    @Test("format and parse agree to the microsecond")
    func roundTrip() throws {
        for seconds in [0.0, 1_750_000_000.125, 951_782_400.999999, -86_400.5, 4_102_444_800.000001] {
            let date = Date(timeIntervalSince1970: seconds)
            let parsed = try #require(WireDate.parse(WireDate.format(date)))
            #expect(abs(parsed.timeIntervalSince1970 - seconds) < 0.000_002)
        }
    }

    @Test("every week of eight centuries formats as Foundation's calendar says, and years past 9999 still format")
    func formatsEveryDay() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = try #require(TimeZone(identifier: "UTC"))
        // 1600-01-01 (after the Gregorian reform, where Foundation's calendar stops being
        // proleptic) to 2400-12-31, a week and a second apart.
        var seconds = -11_676_096_000.0 + 3_723.5
        while seconds < 13_601_088_000 {
            let date = Date(timeIntervalSince1970: seconds)
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let expected = String(
                format: "%04d-%02d-%02dT%02d:%02d:%02d.500000Z", parts.year!, parts.month!, parts.day!, parts.hour!, parts.minute!, parts.second!)
            guard WireDate.format(date) == expected else {
                Issue.record("\(seconds): \(WireDate.format(date)) != \(expected)")
                return
            }
            seconds += 86_400 * 7 + 1
        }
        #expect(WireDate.format(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00.000000Z")
    }
}
