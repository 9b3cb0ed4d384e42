import Foundation
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Phone factors through ``SessionManager/mfa`` against the real server in process, whose text
/// messages go to a recording sender (GoTrue sends phone factors' codes even to test numbers):
/// enrol → challenge → verify to `aal2`, the codes it refuses, listing and removal.
@Suite("End to end: two-step verification (phone)", .timeLimit(.minutes(5)))
struct PhoneFactorFlowTests {
    let password = "correct horse battery"
    static let number = "15555550100"

    func withServer(_ body: (TestServer, RecordingSMSSender) async throws -> Void) async throws {
        let sms = RecordingSMSSender()
        try await withTestServer(
            smsSender: sms,
            configure: {
                $0.mfa.phoneEnrollEnabled = true
                $0.mfa.phoneVerifyEnabled = true
                $0.mfa.phoneCodeLength = 8
            }
        ) { server in try await body(server, sms) }
    }

    /// A code of the same length that is not `code`.
    func wrong(_ code: String) -> String { code.first == "0" ? "1" + code.dropFirst() : "0" + code.dropFirst() }

    @Test("enrol → challenge by SMS → verify: aal1 before, aal2 after with mfa/phone, stored; the factor is listed with its number")
    func enrollAndVerify() async throws {
        try await withServer { server, sms in
            let app = E2EApp(server: server) { $0.automaticRefresh = false }
            let (manager, signedUp) = try await app.signUp()
            #expect(signedUp.assurance.level == .aal1)

            let factor = try await manager.mfa.enrollPhone("+1 555 555 0100", friendlyName: "My phone")
            #expect(factor.factorType == "phone" && factor.status == .unverified && factor.friendlyName == "My phone")
            #expect(factor.phone == "+1 555 555 0100", "the enrolment answers the number as given, as GoTrue does")
            #expect(sms.sent.isEmpty, "enrolling sends nothing")
            let listed = try await manager.mfa.listFactors()
            #expect(listed.map(\.id) == [factor.id])
            #expect(listed.first?.phone == Self.number && listed.first?.status == .unverified && listed.first?.isVerifiedPhone == false)
            #expect(await manager.currentSession?.requiresSecondFactor == false, "an unverified factor asks for nothing")

            let events = EventRecorder(manager)
            let challenge = try await manager.mfa.challenge(factorID: factor.id, channel: .sms)
            #expect(challenge.factorID == factor.id && challenge.ceremony == nil)
            #expect(challenge.expiresAt.map { $0 > server.serverClock.now() } == true)
            let message = try #require(sms.sent.last)
            #expect(message.to == Self.number && message.channel == .sms && message.code.count == 8)

            let verified = try await manager.mfa.verify(factorID: factor.id, challengeID: challenge.id, code: message.code)
            #expect(verified.assurance.level == .aal2)
            #expect(verified.assurance.methodNames.contains("mfa/phone"))
            #expect(verified.user.factors.map(\.status) == [.verified])
            #expect(verified.user.factors.first?.isVerifiedPhone == true && verified.user.factors.first?.phone == Self.number)
            #expect(await events.wait { $0.contains { if case .secondFactorVerified = $0 { true } else { false } } })
            events.cancel()
            #expect(try await app.storedRefreshToken() == verified.refreshToken)

            // The stored session keeps the factor's number across a relaunch.
            let relaunched = app.launch()
            #expect(await relaunched.restore() == .signedIn(verified))
            #expect(await relaunched.currentSession?.user.factors.first?.phone == Self.number)
        }
    }

    @Test("a later sign-in is aal1 until a texted code: a wrong code and the code of another challenge are refused and change nothing")
    func signInNeedsCode() async throws {
        try await withServer { server, sms in
            let email = uniqueEmail("phone-mfa")
            let first = E2EApp(server: server) { $0.automaticRefresh = false }
            let (owner, _) = try await first.signUp(email: email, password: password)
            let factor = try await owner.mfa.enrollPhone(Self.number)
            let enrolment = try await owner.mfa.challenge(factorID: factor.id, channel: .sms)
            try await owner.mfa.verify(factorID: factor.id, challengeID: enrolment.id, code: try sms.code(to: Self.number))

            let other = E2EApp(server: server) { $0.automaticRefresh = false }
            let manager = other.launch()
            _ = await manager.restore()
            let session = try await manager.account.signIn(email: email, password: password)
            #expect(session.assurance.level == .aal1)
            #expect(session.requiresSecondFactor)
            let verifiedPhone = session.user.factors.first(where: \.isVerifiedPhone)
            let phoneFactor = try #require(verifiedPhone)
            #expect(phoneFactor.id == factor.id)

            server.serverClock.advance(by: 61)
            let challengeA = try await manager.mfa.challenge(factorID: phoneFactor.id, channel: .whatsapp)
            let codeA = try sms.code(to: Self.number)
            #expect(sms.sent.last?.channel == .whatsapp)
            do {
                try await manager.mfa.verify(factorID: phoneFactor.id, challengeID: challengeA.id, code: wrong(codeA))
                Issue.record("a wrong code must be refused")
            } catch let failure as AuthFailure {
                #expect(failure.category == .invalidInput && failure.code == "mfa_verification_failed")
            }
            #expect(await manager.currentSession == session, "a refused code leaves the session at aal1")

            // Challenge again: A's code does not verify B.
            server.serverClock.advance(by: 61)
            let challengeB = try await manager.mfa.challenge(factorID: phoneFactor.id, channel: .sms)
            let codeB = try sms.code(to: Self.number)
            #expect(challengeB.id != challengeA.id)
            if codeA != codeB {
                do {
                    try await manager.mfa.verify(factorID: phoneFactor.id, challengeID: challengeB.id, code: codeA)
                    Issue.record("the code of another challenge must be refused")
                } catch let failure as AuthFailure {
                    #expect(failure.code == "mfa_verification_failed")
                }
            }
            #expect(await manager.currentSession?.assurance.level == .aal1)

            let verified = try await manager.mfa.verify(factorID: phoneFactor.id, challengeID: challengeB.id, code: codeB)
            #expect(verified.assurance.level == .aal2)
            #expect(try await other.storedRefreshToken() == verified.refreshToken)
        }
    }

    @Test("a second challenge within a minute is rate limited; removal needs aal2, then the session is aal1 and the factor gone")
    func frequencyAndUnenroll() async throws {
        try await withServer { server, sms in
            let email = uniqueEmail("phone-off")
            let app = E2EApp(server: server) { $0.automaticRefresh = false }
            let (manager, _) = try await app.signUp(email: email, password: password)
            let factor = try await manager.mfa.enrollPhone(Self.number)
            let challenge = try await manager.mfa.challenge(factorID: factor.id, channel: .sms)
            do {
                _ = try await manager.mfa.challenge(factorID: factor.id, channel: .sms)
                Issue.record("a second text within the minute must be refused")
            } catch let failure as AuthFailure {
                if case .rateLimited = failure.category {} else { Issue.record("expected rateLimited, got \(failure.category)") }
            }
            #expect(sms.sent.count == 1)
            try await manager.mfa.verify(factorID: factor.id, challengeID: challenge.id, code: try sms.code(to: Self.number))

            // Another device at aal1 cannot remove the verified factor.
            let other = E2EApp(server: server) { $0.automaticRefresh = false }.launch()
            _ = await other.restore()
            _ = try await other.account.signIn(email: email, password: password)
            do {
                try await other.mfa.unenroll(factorID: factor.id)
                Issue.record("unenrolling a verified factor at aal1 must be refused")
            } catch let failure as AuthFailure {
                #expect(failure.code == "insufficient_aal")
            }

            try await manager.mfa.unenroll(factorID: factor.id)
            let after = try #require(await manager.currentSession)
            #expect(after.user.factors.isEmpty)
            #expect(after.assurance.level == .aal1)
            #expect(try await manager.mfa.listFactors().isEmpty)
        }
    }

    @Test("the server's refusals reach the app as AuthFailures: a number that is not E.164, phone factors off")
    func refusals() async throws {
        try await withServer { server, _ in
            let (manager, _) = try await E2EApp(server: server).signUp()
            do {
                _ = try await manager.mfa.enrollPhone("+0123")
                Issue.record("a number that is not E.164 must be refused")
            } catch let failure as AuthFailure {
                #expect(failure.category == .invalidInput && failure.code == "validation_failed")
            }
        }
        try await withTestServer { server in
            let (manager, _) = try await E2EApp(server: server).signUp()
            do {
                _ = try await manager.mfa.enrollPhone(Self.number)
                Issue.record("phone factors are off by default")
            } catch let failure as AuthFailure {
                #expect(failure.code == "mfa_phone_enroll_not_enabled")
            }
        }
    }
}
