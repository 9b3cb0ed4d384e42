import LatchkeyWire
import Testing

@Suite("The email rule")
struct EmailRuleTests {
    @Test("accepts name@domain.tld shapes, whatever the case, up to 254 bytes")
    func accepts() {
        for email in [
            "ada@example.com", "Ada.Lovelace+mfa@Mail.Example.CO", "a@b.co", "x_y-z@sub.domain.example",
            String(repeating: "a", count: 64) + "@example.com",
            "a@" + String(repeating: "b", count: 245) + ".com",
        ] {
            #expect(EmailRule.isWellFormed(email), "\(email)")
        }
    }

    @Test("refuses what is not one address: no or two @, empty parts, undotted or empty labels, a one-letter TLD, spaces, brackets, too long")
    func refuses() {
        for email in [
            "", "a", "ada@", "@example.com", "ada@example", "ada@example.c", "ada@.example.com", "ada@example.com.",
            "ada@example..com", "a@b@example.com", "ada lovelace@example.com", "ada@exa mple.com", "<ada>@example.com",
            "ada@example.com\n", "ada;bob@example.com", "\"ada\"@example.com",
            String(repeating: "a", count: 65) + "@example.com",
            "a@" + String(repeating: "b", count: 249) + ".com",
        ] {
            #expect(!EmailRule.isWellFormed(email), "\(email)")
        }
    }
}
