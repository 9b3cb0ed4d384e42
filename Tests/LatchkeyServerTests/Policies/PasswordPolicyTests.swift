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

/// GoTrue's required characters (`GOTRUE_PASSWORD_REQUIRED_CHARACTERS`): the rule, its
/// setting's syntax, and what sign-up, a password change and sign-in answer.
@Suite("Password character rules")
struct PasswordCharacterRuleTests {
    static let sets = ["abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ", "0123456789"]

    static func withRules(_ configuration: inout ServerConfiguration) {
        configuration.passwordRequiredCharacters = sets
    }

    @Test("GoTrue's reasons and messages: length, characters, both")
    func reasons() throws {
        #expect(PasswordPolicy.weakness(of: "Abcdefg1", minimumLength: 8, requiredCharacters: Self.sets) == nil)
        let characters = try #require(PasswordPolicy.weakness(of: "abcdefgh", minimumLength: 8, requiredCharacters: Self.sets))
        #expect(characters.reasons == ["characters"])
        #expect(
            characters.message
                == "Password should contain at least one character of each: abcdefghijklmnopqrstuvwxyz, ABCDEFGHIJKLMNOPQRSTUVWXYZ, 0123456789.")
        let both = try #require(PasswordPolicy.weakness(of: "abc", minimumLength: 8, requiredCharacters: Self.sets))
        #expect(both.reasons == ["length", "characters"])
        #expect(both.message?.hasPrefix("Password should be at least 8 characters. Password should contain") == true)
        // A set of non-ASCII characters is matched character by character.
        #expect(PasswordPolicy.weakness(of: "mot de passe é", minimumLength: 8, requiredCharacters: ["éèê"]) == nil)
        #expect(PasswordPolicy.weakness(of: "anything at all", minimumLength: 8, requiredCharacters: []) == nil)
    }

    @Test("the setting is read as GoTrue reads it: colons separate sets, \\: is a colon")
    func settingSyntax() {
        #expect(ServerSetting.characterSets("abc:ABC:012") == ["abc", "ABC", "012"])
        #expect(ServerSetting.characterSets(#"ab\:c:!@#"#) == ["ab:c", "!@#"])
        #expect(ServerSetting.characterSets("::abc:") == ["abc"])
        #expect(ServerSetting.characterSets("") == [])
    }

    @Test("sign-up and a password change are refused with reasons; an old password still signs in, told it is weak")
    func endToEnd() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-rules-\(UUID())")
        defer { try? FileManager.default.removeItem(at: directory) }
        // An account made before the rules.
        try await TestServer.with(directory: directory) { server in
            _ = try await server.signUp("before@example.com", "lowercase only")
        }
        try await TestServer.with(directory: directory, configure: Self.withRules) { server in
            let refused = try await server.request(
                .POST, "/signup", json: ["email": "new@example.com", "password": "lowercase only"])
            #expect(refused.status == 422 && refused.errorCode == "weak_password")
            #expect((refused["weak_password"] as? [String: Any])?["reasons"] as? [String] == ["characters"])
            #expect((refused["msg"] as? String)?.contains("at least one character of each") == true)

            let signedIn = try await server.signIn("before@example.com", "lowercase only")
            #expect(signedIn.status == 200, "the old password still works")
            let notice = try #require(signedIn["weak_password"] as? [String: Any])
            #expect(notice["reasons"] as? [String] == ["characters"])
            let session = try #require(TestSession(signedIn))

            let change = try await server.request(.PUT, "/user", json: ["password": "still lowercase"], bearer: session.accessToken)
            #expect(change.status == 422 && change.errorCode == "weak_password")
            #expect(try await server.request(.PUT, "/user", json: ["password": "Now Strong 42"], bearer: session.accessToken).status == 200)
            let strong = try await server.signIn("before@example.com", "Now Strong 42")
            #expect(strong.status == 200 && strong["weak_password"] == nil, "no notice for a password that keeps the rules")
        }
    }
}
