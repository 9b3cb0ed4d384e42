import Foundation
import Latchkey
import LatchkeyServer
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import LatchkeyAppFlow

/// The delete-account screen against the real server with `--allow-self-deletion`.
@Suite("App flow: deleting the account", .timeLimit(.minutes(5)))
@MainActor
struct DeleteAccountModelTests {
    @Test("confirm → the mailed code → deleted: the account is gone, the user's data wiped, the router back at login")
    func deleteWithCode() async throws {
        try await withFlowServer(configure: { $0.allowSelfDeletion = true }) { server in
            let email = uniqueEmail()
            let userID = try await server.createAccount(email: email, password: "correct horse battery")
            let app = FlowApp(server: server)
            app.signOutPolicy = .wipe
            let launch = await app.start(onboarding: false)
            #expect(await launch.logIn(email: email))
            #expect(await launch.waitForDataSpace(user: userID))
            let userData = try #require(launch.dataSpace.area.directory)
            try FileManager.default.createDirectory(at: userData, withIntermediateDirectories: true)
            try Data("notes".utf8).write(to: userData.appendingPathComponent("notes.txt"))

            let model = DeleteAccountModel(manager: launch.manager)
            #expect(model.step == .confirm)
            #expect(!model.canSubmit)
            #expect(try server.server.outbox().filter { $0.contains("To: \(email)") }.isEmpty, "nothing sent before the confirmation")
            await model.confirm()
            #expect(model.step == .enterCode)
            let code = try server.server.emailCode(to: email)

            model.code = code == "000000" ? "000001" : "000000"
            await model.submit()
            #expect(model.failure != nil, "a wrong code is refused")
            #expect(model.code.isEmpty)
            #expect(model.step == .enterCode)
            #expect(await launch.manager.state.isSignedIn, "nothing deleted")

            model.code = code
            await model.submit()
            #expect(model.step == .deleted, "\(String(describing: model.status))")
            #expect(await launch.waitForRoute(.auth(.login)))
            #expect(await launch.waitForDataSpace(user: nil))
            #expect(!FileManager.default.fileExists(atPath: userData.appendingPathComponent("notes.txt").path), "the user's data is wiped")
            let (status, _) = try await server.admin("GET", "admin/users/\(userID)")
            #expect(status == 404)
        }
    }

    @Test("cancel before the code: nothing deleted, back to the warning")
    func cancel() async throws {
        try await withFlowServer(configure: { $0.allowSelfDeletion = true }) { server in
            let email = uniqueEmail()
            _ = try await server.createAccount(email: email, password: "correct horse battery")
            let launch = await FlowApp(server: server).start(onboarding: false)
            #expect(await launch.logIn(email: email))
            let model = DeleteAccountModel(manager: launch.manager)
            await model.confirm()
            #expect(model.step == .enterCode)
            model.cancel()
            #expect(model.step == .confirm)
            await model.submit()
            #expect(await launch.manager.state.isSignedIn)
        }
    }

    @Test("a phone second factor: confirm texts a code to the factor; the emailed nonce is not asked for; the texted code deletes")
    func deleteWithPhoneFactor() async throws {
        let sms = RecordingSMSSender()
        try await withFlowServer(
            smsSender: sms,
            configure: {
                $0.allowSelfDeletion = true
                $0.mfa.phoneEnrollEnabled = true
                $0.mfa.phoneVerifyEnabled = true
            }
        ) { server in
            let email = uniqueEmail()
            let userID = try await server.createAccount(email: email, password: "correct horse battery")
            let launch = await FlowApp(server: server).start(onboarding: false)
            #expect(await launch.logIn(email: email))
            let factor = try await launch.manager.mfa.enrollPhone("+15555550100")
            let enrolment = try await launch.manager.mfa.challenge(factorID: factor.id, channel: .sms)
            try await launch.manager.mfa.verify(factorID: factor.id, challengeID: enrolment.id, code: try sms.code(to: "15555550100"))
            // The factor was verified long enough ago that deleting needs it verified again.
            server.serverClock.advance(by: 700)
            let texted = sms.sent.count

            let model = DeleteAccountModel(manager: launch.manager)
            await model.confirm()
            #expect(model.step == .enterSecondFactorCode, "\(String(describing: model.status))")
            #expect(model.prompt == model.strings.deleteAccountPhoneFactorPrompt)
            #expect(sms.sent.count == texted + 1, "a code is texted to the factor's number")
            #expect(try server.server.outbox().filter { $0.contains("To: \(email)") && $0.contains("reauthentication") }.isEmpty)
            let code = try sms.code(to: "15555550100")

            model.code = code == "000000" ? "000001" : "000000"
            await model.submit()
            #expect(model.failure != nil, "a wrong code is refused")
            #expect(await launch.manager.state.isSignedIn, "nothing deleted")

            server.serverClock.advance(by: 61)  // past the interval between two texts to a factor
            await model.resendCode()
            #expect(sms.sent.count == texted + 2, "another code is texted")
            model.code = try sms.code(to: "15555550100")
            await model.submit()
            #expect(model.step == .deleted, "\(String(describing: model.status))")
            let (status, _) = try await server.admin("GET", "admin/users/\(userID)")
            #expect(status == 404)
        }
    }
}
