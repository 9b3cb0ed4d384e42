import Foundation
import LatchkeyTesting
import Testing

@Suite("TOTPCode: RFC 6238 codes")
struct TOTPCodeTests {
    /// RFC 6238 appendix B's SHA-1 secret, "12345678901234567890", in Base32.
    static let secret = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ"

    @Test(
        "RFC 6238 appendix B (SHA-1): 8-digit vectors, and their last 6 digits as 6-digit codes",
        arguments: [
            (59.0, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
            (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130"),
        ])
    func rfcVectors(time: Double, expected: String) throws {
        let date = Date(timeIntervalSince1970: time)
        #expect(try TOTPCode.current(secret: Self.secret, at: date, digits: 8) == expected)
        #expect(try TOTPCode.current(secret: Self.secret, at: date) == String(expected.suffix(6)))
    }

    @Test("Secrets are read case-insensitively, with padding and spaces; a non-Base32 secret throws")
    func secretForms() throws {
        let date = Date(timeIntervalSince1970: 59)
        #expect(try TOTPCode.current(secret: Self.secret.lowercased(), at: date) == "287082")
        #expect(try TOTPCode.current(secret: "GEZD GNBV GY3T QOJQ GEZD GNBV GY3T QOJQ", at: date) == "287082")
        #expect(throws: TOTPCode.InvalidSecret.self) { try TOTPCode.current(secret: "not base32!", at: date) }
        #expect(throws: TOTPCode.InvalidSecret.self) { try TOTPCode.current(secret: "", at: date) }
    }

    @Test("Codes change every 30 seconds; secondsRemaining counts down to the change")
    func steps() throws {
        let start = Date(timeIntervalSince1970: 1_700_000_020)
        let code = try TOTPCode.current(secret: Self.secret, at: start)
        #expect(try TOTPCode.current(secret: Self.secret, at: start.addingTimeInterval(19)) == code)
        #expect(try TOTPCode.current(secret: Self.secret, at: start.addingTimeInterval(20)) != code)
        #expect(TOTPCode.secondsRemaining(at: start) == 20)
    }
}
