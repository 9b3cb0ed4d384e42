import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// `GET /reauthenticate` for an account with only a phone number: the nonce goes by SMS, as
/// in GoTrue, and works once, only for its user, only before it expires.
@Suite("Reauthentication by SMS")
struct PhoneReauthenticationTests {
    /// A phone-only account with a confirmed number and a password, and its session.
    static func phoneAccount(_ server: TestServer, _ sms: RecordingSMSSender, _ phone: String) async throws -> TestSession {
        let signedUp = try await server.request(.POST, "/signup", json: ["phone": phone, "password": "phone password 1"])
        #expect(signedUp.status == 200, "\(signedUp.text)")
        let verified = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": phone, "token": try sms.code(to: phone)])
        return try #require(TestSession(verified), "\(verified.text)")
    }

    @Test("an old session of a phone-only account changes its password with the nonce texted to it; wrong, reused and expired nonces are refused")
    func nonceBySMS() async throws {
        try await PhoneSignInTests.withPhoneServer(configure: { $0.securePasswordChange = true }) { server, sms in
            let session = try await Self.phoneAccount(server, sms, "15555550123")
            server.clock.advance(by: 24 * 3600 + 1)
            let old = try #require(TestSession(try await server.refresh(session.refreshToken)))
            try await server.request(.PUT, "/user", json: ["password": "phone password 2"], bearer: old.accessToken)
                .expectError(400, "reauthentication_needed")

            let sentBefore = sms.sent.count
            let requested = try await server.request(.GET, "/reauthenticate", bearer: old.accessToken)
            #expect(requested.status == 200, "\(requested.text)")
            #expect(sms.sent.count == sentBefore + 1 && sms.sent.last?.to == "15555550123")
            let nonce = try sms.code(to: "15555550123")
            try await server.request(
                .PUT, "/user", json: ["password": "phone password 2", "nonce": PhoneFactorTests.wrong(nonce)], bearer: old.accessToken
            )
            .expectError(422, "reauthentication_not_valid")
            let changed = try await server.request(.PUT, "/user", json: ["password": "phone password 2", "nonce": nonce], bearer: old.accessToken)
            #expect(changed.status == 200, "\(changed.text)")
            try await server.request(.PUT, "/user", json: ["password": "phone password 3", "nonce": nonce], bearer: old.accessToken)
                .expectError(422, "reauthentication_not_valid")
            #expect(
                try await server.request(.POST, "/token?grant_type=password", json: ["phone": "15555550123", "password": "phone password 2"])
                    .status == 200)

            // A second nonce within the minimum interval is refused; one past its lifetime is not valid.
            try await server.request(.GET, "/reauthenticate", bearer: old.accessToken).expectError(429, "over_sms_send_rate_limit")
            server.clock.advance(by: 61)
            #expect(try await server.request(.GET, "/reauthenticate", bearer: old.accessToken).status == 200)
            let late = try sms.code(to: "15555550123")
            server.clock.advance(by: PhoneSettings().codeTTL + 1)
            let refreshed = try #require(TestSession(try await server.refresh(old.refreshToken)))
            try await server.request(.PUT, "/user", json: ["password": "phone password 3", "nonce": late], bearer: refreshed.accessToken)
                .expectError(422, "reauthentication_not_valid")
        }
    }

    @Test("a nonce texted to one account does not change another's password")
    func anotherUsersNonce() async throws {
        try await PhoneSignInTests.withPhoneServer(configure: { $0.securePasswordChange = true }) { server, sms in
            let ada = try await Self.phoneAccount(server, sms, "15555550123")
            let bob = try await Self.phoneAccount(server, sms, "15555550124")
            server.clock.advance(by: 24 * 3600 + 1)
            let adaOld = try #require(TestSession(try await server.refresh(ada.refreshToken)))
            let bobOld = try #require(TestSession(try await server.refresh(bob.refreshToken)))
            #expect(try await server.request(.GET, "/reauthenticate", bearer: adaOld.accessToken).status == 200)
            let adasNonce = try sms.code(to: "15555550123")
            try await server.request(.PUT, "/user", json: ["password": "taken over 1", "nonce": adasNonce], bearer: bobOld.accessToken)
                .expectError(422, "reauthentication_not_valid")
            #expect(
                try await server.request(.POST, "/token?grant_type=password", json: ["phone": "15555550124", "password": "phone password 1"])
                    .status == 200, "Bob's password is unchanged")
        }
    }

    @Test("an account with neither an address nor a number (a pending number is not one yet) is refused; nothing is sent")
    func noAddressNorNumber() async throws {
        try await PhoneSignInTests.withPhoneServer(configure: {
            $0.securePasswordChange = true
            $0.enableAnonymousUsers = true
        }) { server, sms in
            let anonymous = try #require(TestSession(try await server.request(.POST, "/signup", json: [:])))
            #expect(try await server.request(.PUT, "/user", json: ["phone": "15555550188"], bearer: anonymous.accessToken).status == 200)
            let sent = sms.sent.count
            try await server.request(.GET, "/reauthenticate", bearer: anonymous.accessToken).expectError(400, "validation_failed")
            #expect(sms.sent.count == sent)
        }
    }
}
