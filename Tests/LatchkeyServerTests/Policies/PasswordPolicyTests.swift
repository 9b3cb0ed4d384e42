import Foundation
import Testing

@testable import LatchkeyServer

@Suite("Password policy")
struct PasswordPolicyTests {
    @Test func passwords() throws {
        try PasswordPolicy.check("12345678", minimumLength: 8)
        #expect(throws: AuthError.self) { try PasswordPolicy.check("1234567", minimumLength: 8) }
        #expect(throws: AuthError.self) { try PasswordPolicy.check(String(repeating: "é", count: 40), minimumLength: 8) }
        // Length counts characters, not bytes, and spaces count.
        try PasswordPolicy.check("        ", minimumLength: 8)
    }
}
