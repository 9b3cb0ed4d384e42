import Foundation
import Testing

@testable import LatchkeyServer

/// bcrypt stops at a NUL byte and ignores everything past 72 bytes: such passwords are refused
/// wherever one is accepted, rather than silently cut.
@Suite("Passwords bcrypt would cut")
struct PasswordBytesTests {
    static let withNUL = "\u{0}abcdefghij"
    static let tooLong = String(repeating: "é", count: 37)  // 74 bytes, 37 characters

    @Test("a NUL byte is refused at sign-up, sign-in, PUT /user, the admin API and generate_link (422 validation_failed)")
    func nulRefusedEverywhere() async throws {
        try await TestServer.with(configure: { $0.autoconfirm = true }) { server in
            let key = server.server.serviceRoleKey
            func expectNUL(_ response: TestResponse, _ what: Comment) {
                #expect(response.status == 422, what)
                #expect(response.errorCode == "validation_failed", what)
                #expect((response["msg"] as? String)?.contains("NUL") == true, what)
            }
            expectNUL(try await server.request(.POST, "/signup", json: ["email": "nul@example.com", "password": Self.withNUL]), "sign-up")
            // The attack: an account whose password starts with NUL would accept any such password.
            let session = try await server.signUp("victim@example.com", "correct horse battery")
            expectNUL(try await server.signIn("victim@example.com", Self.withNUL), "sign-in")
            expectNUL(try await server.request(.PUT, "/user", json: ["password": Self.withNUL], bearer: session.accessToken), "PUT /user")
            expectNUL(
                try await server.request(.POST, "/admin/users", json: ["email": "a@example.com", "password": Self.withNUL], bearer: key),
                "admin create")
            expectNUL(
                try await server.request(.PUT, "/admin/users/\(session.userID)", json: ["password": Self.withNUL], bearer: key), "admin update")
            expectNUL(
                try await server.request(
                    .POST, "/admin/generate_link", json: ["type": "signup", "email": "g@example.com", "password": Self.withNUL], bearer: key),
                "generate_link")
            #expect(try await server.signIn("victim@example.com").status == 200, "the real password still works")
            let users = try await server.request(.GET, "/admin/users", bearer: key)
            #expect((users["users"] as? [Any])?.count == 1, "no account was created with a NUL password")
        }
    }

    @Test("sign-in refuses a password over 72 bytes as sign-up does (400 validation_failed), before any bcrypt work")
    func longPasswordAtSignIn() async throws {
        try await TestServer.with(configure: { $0.autoconfirm = true }) { server in
            let signUp = try await server.request(.POST, "/signup", json: ["email": "long@example.com", "password": Self.tooLong])
            #expect(signUp.status == 400)
            #expect(signUp.errorCode == "validation_failed")
            _ = try await server.signUp("long2@example.com", String(Self.tooLong.prefix(36)))  // 72 bytes: fine
            let signIn = try await server.signIn("long2@example.com", Self.tooLong)
            #expect(signIn.status == 400)
            #expect(signIn.errorCode == "validation_failed")
            #expect(signIn["msg"] as? String == signUp["msg"] as? String)
            #expect(try await server.signIn("long2@example.com", String(Self.tooLong.prefix(36))).status == 200)
        }
    }

    @Test("the hosted set-password check refuses NUL too")
    func policyRefusesNUL() {
        #expect(throws: AuthError.passwordHasNUL) { try PasswordPolicy.check("abc\u{0}defghijk", minimumLength: 8) }
        #expect(throws: AuthError.passwordHasNUL) { try PasswordPolicy.check("\u{0}", minimumLength: 8) }
    }
}
