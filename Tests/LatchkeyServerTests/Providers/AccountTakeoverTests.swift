import Foundation
import LatchkeyTesting
import Testing

@testable import LatchkeyServer

/// Attacks on accounts through provider sign-in and unconfirmed sign-ups, each run against the
/// real server and a real (local) OpenID provider: the attacker controls a provider account
/// that claims the victim's address without verifying it, or signs up first with it.
@Suite("Account takeover through provider sign-in")
struct AccountTakeoverTests {
    static let victim = "victim@example.com"

    static func token(_ provider: TestIdentityProvider, _ server: TestServer, subject: String, email: String, verified: Bool) throws -> String {
        try provider.idToken(
            subject: subject, audience: IDTokenGrantTests.clientID, email: email, emailVerified: verified, issuedAt: server.clock.now())
    }

    @Test("an identity whose provider did not verify the address never captures the owner's later sign-ins, nor makes them fail")
    func unverifiedIdentityNamesNoAccount() async throws {
        try await IDTokenGrantTests.with(configure: { $0.autoconfirm = true }) { server, provider in
            // One attacker identity: the owner's verified sign-in must not land in its account.
            let attacker = try await IDTokenGrantTests.grant(
                server, try Self.token(provider, server, subject: "attacker-1", email: Self.victim, verified: false))
            let attackerSession = try #require(TestSession(attacker), "\(attacker.text)")
            let owner = try await IDTokenGrantTests.grant(
                server, try Self.token(provider, server, subject: "owner-1", email: Self.victim, verified: true))
            let ownerSession = try #require(TestSession(owner), "\(owner.text)")
            #expect(ownerSession.userID != attackerSession.userID)
            #expect(ownerSession.email == Self.victim)
            let attackers = try await server.request(.GET, "/user", bearer: attackerSession.accessToken)
            #expect((attackers["identities"] as? [[String: Any]])?.count == 1)

            // Two attacker identities at another address: the owner still signs in (no 500).
            for subject in ["attacker-2", "attacker-3"] {
                let response = try await IDTokenGrantTests.grant(
                    server, try Self.token(provider, server, subject: subject, email: "other@example.com", verified: false))
                #expect(response.status == 200, "\(response.text)")
            }
            let other = try await IDTokenGrantTests.grant(
                server, try Self.token(provider, server, subject: "owner-2", email: "other@example.com", verified: true))
            #expect(other.status == 200, "\(other.text)")
            #expect(TestSession(other)?.email == "other@example.com")
        }
    }

    @Test("an unverified provider address stays the identity's: the owner's sign-up and confirmation give the identity no way in")
    func unverifiedProviderAddressThenSignUp() async throws {
        try await IDTokenGrantTests.with(configure: { $0.autoconfirm = false }) { server, provider in
            let first = try await IDTokenGrantTests.grant(
                server, try Self.token(provider, server, subject: "attacker", email: Self.victim, verified: false))
            #expect(first.errorCode == "provider_email_needs_verification", "\(first.text)")

            server.clock.advance(by: 120)
            let signUp = try await server.request(.POST, "/signup", json: ["email": Self.victim, "password": "victim password 1"])
            #expect(signUp.status == 200, "\(signUp.text)")
            let verified = try await server.request(
                .POST, "/verify", json: ["type": "signup", "email": Self.victim, "token": try server.emailCode(to: Self.victim)])
            let victimSession = try #require(TestSession(verified), "\(verified.text)")
            #expect(try await server.signIn(Self.victim, "victim password 1").status == 200)

            server.clock.advance(by: 120)
            let again = try await IDTokenGrantTests.grant(
                server, try Self.token(provider, server, subject: "attacker", email: Self.victim, verified: false))
            #expect(TestSession(again)?.userID != victimSession.userID, "\(again.text)")
            let me = try await server.request(.GET, "/user", bearer: victimSession.accessToken)
            #expect((me["identities"] as? [[String: Any]])?.contains { $0["provider"] as? String == "keycloak" } == false)
        }
    }

    @Test("with autoconfirm, an unverified provider address gives the new account no address: the owner can still sign up")
    func unverifiedProviderAddressWithAutoconfirm() async throws {
        try await IDTokenGrantTests.with(configure: { $0.autoconfirm = true }) { server, provider in
            let attacker = try await IDTokenGrantTests.grant(
                server, try Self.token(provider, server, subject: "attacker", email: Self.victim, verified: false))
            let attackerSession = try #require(TestSession(attacker), "\(attacker.text)")
            #expect(attackerSession.email == "")
            let identity = try #require(((attacker["user"] as? [String: Any])?["identities"] as? [[String: Any]])?.first)
            #expect(identity["email"] as? String == Self.victim)

            let owner = try await server.signUp(Self.victim, "victim password 1")
            #expect(owner.userID != attackerSession.userID)
        }
    }

    @Test("a password set before the owner confirmed the address is removed, and the owner is told")
    func passwordPreAccountTakeover() async throws {
        try await TestServer.with(clock: ManualServerClock(Date()), configure: { $0.autoconfirm = false }) { server in
            let attacker = try await server.request(.POST, "/signup", json: ["email": Self.victim, "password": "attacker password 1"])
            #expect(attacker.status == 200, "\(attacker.text)")

            // The owner signs up later (GoTrue ignores this password) and confirms the address.
            server.clock.advance(by: 120)
            let owner = try await server.request(.POST, "/signup", json: ["email": Self.victim, "password": "victim password 1"])
            #expect(owner.status == 200, "\(owner.text)")
            let verified = try await server.request(
                .POST, "/verify", json: ["type": "signup", "email": Self.victim, "token": try server.emailCode(to: Self.victim)])
            #expect(TestSession(verified) != nil, "\(verified.text)")

            #expect(try await server.signIn(Self.victim, "attacker password 1").errorCode == "invalid_credentials")
            _ = try await AccountNoticeTests.awaitNotice(server, .passwordChangedNotification, to: Self.victim)
        }
    }

    @Test("the confirmation mailed at sign-up proves the password chosen there: it stays")
    func ownConfirmationKeepsPassword() async throws {
        try await TestServer.with(clock: ManualServerClock(Date()), configure: { $0.autoconfirm = false }) { server in
            let signUp = try await server.request(.POST, "/signup", json: ["email": Self.victim, "password": "victim password 1"])
            #expect(signUp.status == 200, "\(signUp.text)")
            server.clock.advance(by: 120)
            let verified = try await server.request(
                .POST, "/verify", json: ["type": "signup", "email": Self.victim, "token": try server.emailCode(to: Self.victim)])
            #expect(TestSession(verified) != nil, "\(verified.text)")
            #expect(try await server.signIn(Self.victim, "victim password 1").status == 200)
        }
    }
}
