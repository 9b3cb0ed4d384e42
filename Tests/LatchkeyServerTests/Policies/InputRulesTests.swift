import Foundation
import Testing

@testable import LatchkeyServer

@Suite("Input rules")
struct InputRulesTests {
    @Test(arguments: ["24h", "1h30m", "90s", "10m", "1.5h", "500ms"])
    func banDurations(_ text: String) throws {
        #expect(try InputRules.banDuration(text) != nil)
    }

    @Test func banDurationValues() throws {
        #expect(try InputRules.banDuration("1h30m") == 5400)
        #expect(try InputRules.banDuration("none") == nil)
        for bad in ["", "h", "forever", "10", "-5m", "5x", "1h30"] {
            #expect(throws: AuthError.self, "\(bad)") { try InputRules.banDuration(bad) }
        }
    }

    @Test func emails() throws {
        #expect(try InputRules.normalizedEmail("  Mixed.Case+tag@Example.COM\n") == "mixed.case+tag@example.com")
        for bad in [
            nil, "", "   ", "plain", "a@b", "@example.com", "a@.example.com", "a@example.com.", "a b@example.com", "a@@example.com",
            "<a>@example.com",
        ] {
            #expect(throws: AuthError.self, "\(String(describing: bad))") { try InputRules.normalizedEmail(bad) }
        }
    }

    @Test func constantTimeComparison() {
        #expect(constantTimeEquals("abc", "abc"))
        #expect(!constantTimeEquals("abc", "abd"))
        #expect(!constantTimeEquals("abc", "abcd"))
    }
}
