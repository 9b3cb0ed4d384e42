import Foundation
import Testing

@testable import LatchkeyServer

/// No answer tells whether an address has an account: sign-up, recovery, resend and `/otp`
/// answer alike for both, rate limits included; and email limits are per kind of email.
@Suite("Account enumeration and email limits")
struct AccountEnumerationTests {
    func server(_ body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with(configure: { $0.autoconfirm = false }) { server in try await body(server) }
    }

    /// A confirmed account for `email`.
    func confirmedAccount(_ server: TestServer, _ email: String) async throws {
        _ = try await server.request(.POST, "/signup", json: ["email": email, "password": "correct horse battery"])
        _ = try await server.request(.POST, "/verify", json: ["type": "signup", "email": email, "token": try server.emailCode(to: email)])
        server.clock.advance(by: 61)
    }

    @Test("signing up with a taken address answers like a new sign-up (a look-alike user) and mails nothing")
    func signUpLookalike() async throws {
        try await server { server in
            try await confirmedAccount(server, "taken@example.com")
            let mailsBefore = try server.mailCount(to: "taken@example.com")
            let taken = try await server.request(.POST, "/signup", json: ["email": "taken@example.com", "password": "another password"])
            let fresh = try await server.request(.POST, "/signup", json: ["email": "free@example.com", "password": "another password"])
            #expect(taken.status == 200 && fresh.status == 200)
            #expect(Set(taken.json.keys) == Set(fresh.json.keys))
            #expect((taken["identities"] as? [Any])?.count == (fresh["identities"] as? [Any])?.count)
            #expect(taken["email_confirmed_at"] == nil && taken["confirmation_sent_at"] is String)
            #expect(taken["id"] as? String != nil)
            #expect(try server.mailCount(to: "taken@example.com") == mailsBefore)
            // Limits count both alike: a second try within the minute is 429 for either.
            try await server.request(.POST, "/signup", json: ["email": "taken@example.com", "password": "another password"])
                .expectError(429, "over_email_send_rate_limit")
            try await server.request(.POST, "/signup", json: ["email": "free@example.com", "password": "another password"])
                .expectError(429, "over_email_send_rate_limit")
            #expect(try await server.signIn("taken@example.com").status == 200, "the owner's password is untouched")
        }
    }

    @Test("recover, resend and otp answer alike for known and unknown addresses, 429s included")
    func sameAnswers() async throws {
        try await server { server in
            try await confirmedAccount(server, "known@example.com")
            for (path, body) in [("/recover", [String: any Sendable]()), ("/resend", ["type": "signup"]), ("/otp", ["create_user": false])] {
                var answers: [[Int]] = []
                for email in ["known@example.com", "unknown@example.com"] {
                    var json = body
                    json["email"] = email
                    let first = try await server.request(.POST, path, json: json)
                    let second = try await server.request(.POST, path, json: json)
                    answers.append([first.status, second.status])
                    #expect(first.text == "{}", "\(path) \(email)")
                }
                #expect(answers[0] == answers[1], "\(path): \(answers)")
                server.clock.advance(by: 61)
            }
        }
    }

    @Test("email limits are per kind: a recovery mail right after the sign-up confirmation is sent")
    func perKindLimits() async throws {
        try await server { server in
            _ = try await server.request(.POST, "/signup", json: ["email": "kinds@example.com", "password": "correct horse battery"])
            #expect(try await server.request(.POST, "/recover", json: ["email": "kinds@example.com"]).status == 200)
            _ = try server.linkToken(to: "kinds@example.com", type: "recovery")
            try await server.request(.POST, "/recover", json: ["email": "kinds@example.com"]).expectError(429, "over_email_send_rate_limit")
        }
    }
}
