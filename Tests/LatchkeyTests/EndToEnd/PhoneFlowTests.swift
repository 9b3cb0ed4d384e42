import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// Phone sign-in through ``SessionManager/phone`` against the real server, with a test number
/// (`--sms-test-otp`: a fixed code, no SMS sent).
@Suite("End to end: phone sign-in")
struct PhoneFlowTests {
    func withServer(_ body: (TestServer) async throws -> Void) async throws {
        try await withTestServer(
            autoconfirm: false,
            configure: {
                $0.phone.enabled = true
                $0.phone.testCodes = "15555550100:123456,15555550101:654321"
            }
        ) { server in try await body(server) }
    }

    @Test("a texted code signs a new number up and in; the session is stored and survives a relaunch")
    func codeSignIn() async throws {
        try await withServer { server in
            let app = E2EApp(server: server)
            let manager = app.launch()
            await manager.restore()
            try await manager.phone.sendSignInCode(phone: "+1 555 555 0100")
            let session = try await manager.phone.verify(phone: "+1 555 555 0100", code: "123456")
            #expect(session.user.phone == "15555550100")
            #expect(session.user.phoneConfirmedAt != nil)
            #expect(await manager.state == .signedIn(session))
            let relaunched = app.launch()
            await relaunched.restore()
            #expect(await relaunched.state == .signedIn(session))
        }
    }

    @Test("a wrong code, a reused code and a second request within a minute are AuthFailures and leave the state alone")
    func refusals() async throws {
        try await withServer { server in
            let manager = E2EApp(server: server).launch()
            await manager.restore()
            try await manager.phone.sendSignInCode(phone: "15555550101", channel: .whatsapp)
            await #expect(throws: AuthFailure.self) { try await manager.phone.verify(phone: "15555550101", code: "000000") }
            #expect(await manager.state == .signedOut(.noSession))
            await #expect(throws: AuthFailure.self) { try await manager.phone.sendSignInCode(phone: "15555550101") }
            try await manager.phone.verify(phone: "15555550101", code: "654321")
            await manager.signOut(scope: .local)
            await #expect(throws: AuthFailure.self) { try await manager.phone.verify(phone: "15555550101", code: "654321") }
            #expect(await manager.state == .signedOut(.userInitiated))
        }
    }

    @Test("with create_user false an unknown number gets no account")
    func noCreate() async throws {
        try await withServer { server in
            let manager = E2EApp(server: server).launch()
            await manager.restore()
            try await manager.phone.sendSignInCode(phone: "15555550100", createUser: false)
            await #expect(throws: AuthFailure.self) { try await manager.phone.verify(phone: "15555550100", code: "123456") }
        }
    }
}
