import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Two-step verification against the real server in process: enroll → challenge → verify, the
/// aal2 session stored and restored, refresh keeping aal2, a later password sign-in at aal1
/// until the code, wrong and replayed codes, unenroll.
@Suite("End to end: two-step verification (TOTP)", .timeLimit(.minutes(5)))
struct MFAFlowTests {
    let password = "correct horse battery"

    /// The code the authenticator app shows at the server's time, `steps` 30-second steps later
    /// (the server accepts one step of drift; a code whose step was used is refused).
    func code(_ secret: String, _ server: TestServer, steps: Double = 0) throws -> String {
        try TOTPCode.current(secret: secret, at: server.serverClock.now().addingTimeInterval(30 * steps))
    }

    @Test("enroll → challenge → verify: an aal2 session, stored, restored after a relaunch, kept by refresh")
    func enrollAndVerify() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server) { $0.automaticRefresh = false }
            let (manager, signedUp) = try await app.signUp()
            #expect(signedUp.assurance.level == .aal1)
            #expect(signedUp.assurance.methodNames == ["password"])
            #expect(!signedUp.requiresSecondFactor)

            let enrollment = try await manager.mfa.enrollTOTP(friendlyName: "Phone")
            #expect(enrollment.uri.hasPrefix("otpauth://totp/"))
            #expect(enrollment.uri.contains(enrollment.secret))
            #expect(try await manager.mfa.listFactors().map(\.status) == [.unverified])
            #expect(await manager.currentSession?.requiresSecondFactor == false, "an unverified factor asks for nothing")

            let events = EventRecorder(manager)
            let challenge = try await manager.mfa.challenge(factorID: enrollment.factorID)
            #expect(challenge.expiresAt.map { $0 > server.serverClock.now() } == true)
            let verified = try await manager.mfa.verify(
                factorID: enrollment.factorID, challengeID: challenge.id, code: try code(enrollment.secret, server))
            #expect(verified.assurance.level == .aal2)
            #expect(verified.assurance.methodNames.contains("totp"))
            #expect(verified.assurance.methodNames.contains("password"))
            #expect(verified.user.factors.map(\.status) == [.verified])
            #expect(await events.wait { $0.contains { if case .secondFactorVerified = $0 { true } else { false } } })
            events.cancel()
            #expect(try await app.storedRefreshToken() == verified.refreshToken, "stored before anyone sees it")

            // Relaunch: aal2 from the store, no request.
            let relaunched = app.launch()
            #expect(await relaunched.restore() == .signedIn(verified))
            #expect(await relaunched.currentSession?.assurance.level == .aal2)
            // Refresh keeps the level.
            let refreshed = try await relaunched.refresh()
            #expect(refreshed.assurance.level == .aal2)
            #expect(refreshed.assurance.methodNames.contains("totp"))
            #expect(try await relaunched.account.refreshUser().factors.map(\.status) == [.verified])
        }
    }

    @Test(
        "A fresh password sign-in of an account with a verified factor is aal1 and emits secondFactorRequired; a wrong and a replayed code are refused; then aal2"
    )
    func signInNeedsCode() async throws {
        try await withTestServer { server in
            let email = uniqueEmail("mfa")
            let laptop = E2EApp(server: server) { $0.automaticRefresh = false }
            let (first, _) = try await laptop.signUp(email: email, password: password)
            let enrollment = try await first.mfa.enrollTOTP(friendlyName: "Phone")
            let firstCode = try code(enrollment.secret, server)
            try await first.mfa.challengeAndVerify(factorID: enrollment.factorID, code: firstCode)

            // Another device signs in with the password.
            let phone = E2EApp(server: server) { $0.automaticRefresh = false }
            let manager = phone.launch()
            _ = await manager.restore()
            let events = EventRecorder(manager)
            let session = try await manager.account.signIn(email: email, password: password)
            #expect(session.assurance.level == .aal1)
            #expect(session.requiresSecondFactor)
            #expect(session.user.factors.map(\.id) == [enrollment.factorID])
            #expect(await events.wait { $0.contains { if case .secondFactorRequired = $0 { true } else { false } } })

            // What needs aal2 is refused at aal1, in words.
            do {
                try await manager.mfa.unenroll(factorID: enrollment.factorID)
                Issue.record("unenrolling a verified factor at aal1 must be refused")
            } catch let failure as AuthFailure {
                #expect(failure.code == "insufficient_aal")
                #expect(failure.presentation.action == .verifySecondFactor)
            }
            #expect(await manager.state.isSignedIn, "a refusal is not a sign-out")

            // A wrong code, then the code already used on the laptop: both refused, session kept.
            let wrong = firstCode == "000000" ? "111111" : "000000"
            for refused in [wrong, firstCode] {
                do {
                    try await manager.mfa.challengeAndVerify(factorID: enrollment.factorID, code: refused)
                    Issue.record("\(refused == wrong ? "a wrong" : "a replayed") code must be refused")
                } catch let failure as AuthFailure {
                    #expect(failure.category == .invalidInput)
                    #expect(failure.code == "mfa_verification_failed")
                    #expect(failure.presentation.title == "Incorrect Code")
                }
                #expect(await manager.currentSession == session)
            }

            // The next step's code (one step of drift is allowed): aal2, stored.
            let verified = try await manager.mfa.challengeAndVerify(
                factorID: enrollment.factorID, code: try code(enrollment.secret, server, steps: 1))
            #expect(verified.assurance.level == .aal2)
            #expect(try await phone.storedRefreshToken() == verified.refreshToken)
            events.cancel()
        }
    }

    @Test("Unenroll at aal2: the factor is gone, the session back to aal1 after the next refresh, and a new sign-in asks for nothing")
    func unenroll() async throws {
        try await withTestServer { server in
            let email = uniqueEmail("mfa-off")
            let app = E2EApp(server: server) { $0.automaticRefresh = false }
            let (manager, _) = try await app.signUp(email: email, password: password)
            let enrollment = try await manager.mfa.enrollTOTP(friendlyName: "Phone")
            try await manager.mfa.challengeAndVerify(factorID: enrollment.factorID, code: try code(enrollment.secret, server))
            try await manager.mfa.unenroll(factorID: enrollment.factorID)
            let after = try #require(await manager.currentSession)
            #expect(after.user.factors.isEmpty)
            #expect(after.assurance.level == .aal1, "the server lowered the session; the manager fetched new tokens")
            #expect(!after.requiresSecondFactor)

            let other = E2EApp(server: server).launch()
            _ = await other.restore()
            let session = try await other.account.signIn(email: email, password: password)
            #expect(!session.requiresSecondFactor)
            #expect(session.user.factors.isEmpty)
        }
    }

    @Test("An unverified factor is listed, asks for nothing at sign-in, and can be removed at aal1")
    func unverifiedFactor() async throws {
        try await withTestServer { server in
            let email = uniqueEmail("mfa-half")
            let app = E2EApp(server: server) { $0.automaticRefresh = false }
            let (manager, _) = try await app.signUp(email: email, password: password)
            let enrollment = try await manager.mfa.enrollTOTP(friendlyName: "Tablet")
            let other = E2EApp(server: server).launch()
            _ = await other.restore()
            let session = try await other.account.signIn(email: email, password: password)
            #expect(!session.requiresSecondFactor)
            #expect(session.user.factors.map(\.status) == [.unverified])
            try await manager.mfa.unenroll(factorID: enrollment.factorID)
            #expect(try await manager.mfa.listFactors().isEmpty)
            do {
                _ = try await manager.mfa.challenge(factorID: enrollment.factorID)
                Issue.record("a removed factor cannot be challenged")
            } catch let failure as AuthFailure {
                #expect(failure.code == "mfa_factor_not_found")
                #expect(failure.presentation.title == "Authenticator Not Found")
            }
        }
    }

    @Test(
        "Two processes sharing the store: one verifies the code; the other adopts the stored aal2 session instead of spending its old refresh token")
    func crossProcess() async throws {
        try await withSharedInstallation { shared in
            let processes = try await shared.twoProcesses()
            let enrollment = try await processes.firstManager.mfa.enrollTOTP(friendlyName: "Phone")
            let verified = try await processes.firstManager.mfa.challengeAndVerify(
                factorID: enrollment.factorID, code: try code(enrollment.secret, shared.server))
            let refreshesBefore = try await shared.server.refreshCount()
            // The second process still holds the aal1 tokens in memory; its refresh re-reads the
            // store under the lock and finds the newer session.
            let adopted = try await processes.secondManager.refresh()
            #expect(adopted == verified)
            #expect(adopted.assurance.level == .aal2)
            #expect(try await shared.server.refreshCount() == refreshesBefore, "no spent token sent")
            #expect(try await processes.secondManager.account.refreshUser().factors.map(\.status) == [.verified], "and the server accepts it")
        }
    }
}
