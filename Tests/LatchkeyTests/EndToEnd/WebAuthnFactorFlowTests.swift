import Foundation
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// A WebAuthn factor against the real server in process, with `LatchkeyTesting`'s software
/// authenticator: enrolment raises the session to aal2 and stores it; a later password sign-in
/// stops at aal1 until the factor is proved; cancelling is not an error and leaves no factor; an
/// authenticator without the credential is refused.
@Suite("End to end: two-step verification (WebAuthn)", .timeLimit(.minutes(5)))
struct WebAuthnFactorFlowTests {
    static func factorsOn(_ configuration: inout ServerConfiguration) {
        configuration.mfa.webAuthnEnrollEnabled = true
        configuration.mfa.webAuthnVerifyEnabled = true
        configuration.passkeys.relyingPartyID = PasskeyFlowTests.relyingPartyID
        configuration.passkeys.origins = ["https://\(PasskeyFlowTests.relyingPartyID)"]
    }

    func verified(_ result: WebAuthnFactorResult) throws -> Session {
        guard case .verified(let session) = result else { throw AuthFailure(.unknown, detail: "not verified: \(result)") }
        return session
    }

    @Test("enroll: aal2 with mfa/webauthn, stored; a later sign-in is aal1 until verifyWebAuthn, then aal2")
    func enrollAndVerify() async throws {
        try await withTestServer(configure: Self.factorsOn) { server in
            let email = uniqueEmail("key")
            let authenticator = SoftwarePasskeyAuthenticator()
            let laptop = PasskeyFlowTests.app(server, authenticator)
            let (manager, _) = try await laptop.signUp(email: email)
            let events = EventRecorder(manager)
            let raised = try verified(try await manager.mfa.enrollWebAuthn(friendlyName: "Security key"))
            #expect(raised.assurance.level == .aal2)
            #expect(raised.assurance.methodNames.contains("mfa/webauthn"))
            #expect(raised.user.factors.map(\.factorType) == ["webauthn"] && raised.user.factors.allSatisfy(\.isVerifiedWebAuthn))
            #expect(await events.wait { $0.contains { if case .secondFactorVerified = $0 { true } else { false } } })
            events.cancel()
            #expect(try await laptop.storedRefreshToken() == raised.refreshToken, "stored before anyone sees it")

            // Another installation with the same authenticator signs in with the password.
            let phone = PasskeyFlowTests.app(server, authenticator)
            let other = phone.launch()
            _ = await other.restore()
            let session = try await other.account.signIn(email: email, password: "correct horse battery")
            #expect(session.assurance.level == .aal1 && session.requiresSecondFactor)
            let factor = try #require(session.user.factors.first { $0.isVerifiedWebAuthn })
            let proved = try verified(try await other.mfa.verifyWebAuthn(factorID: factor.id))
            #expect(proved.assurance.level == .aal2)
            #expect(try await phone.storedRefreshToken() == proved.refreshToken)

            // A device without the credential: the authenticator has nothing to offer.
            let stranger = PasskeyFlowTests.app(server, SoftwarePasskeyAuthenticator())
            let third = stranger.launch()
            _ = await third.restore()
            _ = try await third.account.signIn(email: email, password: "correct horse battery")
            do {
                _ = try await third.mfa.verifyWebAuthn(factorID: factor.id)
                Issue.record("an authenticator without the credential cannot prove the factor")
            } catch let failure as AuthFailure {
                #expect(failure.code == "no_passkey")
            }
            #expect(await third.currentSession?.assurance.level == .aal1, "a refusal is not a sign-out, nor a raise")
        }
    }

    @Test("cancelling enrolment is not an error: no factor is left, the session is as it was")
    func cancelled() async throws {
        try await withTestServer(configure: Self.factorsOn) { server in
            let authenticator = SoftwarePasskeyAuthenticator()
            await authenticator.setResponse(.cancel)
            let app = PasskeyFlowTests.app(server, authenticator)
            let (manager, signedUp) = try await app.signUp()
            #expect(try await manager.mfa.enrollWebAuthn() == .cancelled)
            #expect(try await manager.mfa.listFactors().isEmpty, "the unverified factor was removed")
            #expect(await manager.currentSession?.assurance.level == .aal1)
            #expect(await manager.currentSession?.refreshToken == signedUp.refreshToken)
        }
    }

    @Test("with WebAuthn factors off the server's refusal comes through in its own code")
    func off() async throws {
        try await withTestServer(configure: PasskeyFlowTests.passkeysOn) { server in
            let app = PasskeyFlowTests.app(server, SoftwarePasskeyAuthenticator())
            let (manager, _) = try await app.signUp()
            do {
                _ = try await manager.mfa.enrollWebAuthn()
                Issue.record("enrolment must be refused")
            } catch let failure as AuthFailure {
                #expect(failure.code == "mfa_webauthn_enroll_not_enabled")
            }
        }
    }
}
