import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

/// The email flows of ``SessionManager`` against the real server: codes, PKCE links,
/// anonymous users and reauthentication.
@Suite("End to end: email codes, PKCE links, anonymous users")
struct EmailFlowTests {
    static let callback = "com.example.app://callback"

    func withServer(_ body: (TestServer) async throws -> Void) async throws {
        try await withTestServer(
            autoconfirm: false,
            configure: {
                $0.additionalRedirectURLs = [Self.callback]
                $0.enableAnonymousUsers = true
                $0.securePasswordChange = true
            }
        ) { server in try await body(server) }
    }

    @Test("a sign-in email's code signs a new address up and in")
    func codeSignIn() async throws {
        try await withServer { server in
            let manager = E2EApp(server: server).launch()
            await manager.restore()
            try await manager.email.sendSignInEmail(email: "coder@example.com")
            let code = try server.server.emailCode(to: "coder@example.com")
            let session = try await manager.email.verify(type: .email, email: "coder@example.com", token: code)
            #expect(session.user.email == "coder@example.com")
            #expect(await manager.state == .signedIn(session))
        }
    }

    @Test("a PKCE magic link survives a relaunch: the new process trades ?code= with the stored verifier, once")
    func pkceMagicLink() async throws {
        try await withServer { server in
            let app = E2EApp(server: server)
            let first = app.launch()
            await first.restore()
            try await first.email.sendSignInEmail(email: "linked@example.com", redirectTo: URL(string: Self.callback))
            let redirect = try await server.server.followLink(to: "linked@example.com", type: "signup")
            #expect(redirect.absoluteString.hasPrefix(Self.callback + "?code="))
            let relaunched = app.launch()
            await relaunched.restore()
            let session = try await relaunched.email.exchangeCode(from: redirect)
            #expect(session.user.email == "linked@example.com")
            await #expect(throws: AuthFailure.self) { try await relaunched.email.exchangeCode(from: redirect) }
        }
    }

    @Test("an error redirect and a URL without a code are AuthFailures, and leave the state alone")
    func exchangeErrors() async throws {
        try await withServer { server in
            let manager = E2EApp(server: server).launch()
            await manager.restore()
            let expired = URL(
                string: Self.callback + "?error=access_denied&error_code=otp_expired&error_description=Email+link+is+invalid#error=access_denied")!
            do {
                try await manager.email.exchangeCode(from: expired)
                Issue.record("an error redirect must throw")
            } catch let failure as AuthFailure {
                #expect(failure.category == .invalidInput)
                #expect(failure.code == "otp_expired")
                #expect(failure.detail == "Email link is invalid", "form encoding: a + is a space")
            }
            await #expect(throws: AuthFailure.self) { try await manager.email.exchangeCode(from: URL(string: Self.callback)!) }
            #expect(await manager.state == .signedOut(.noSession))
        }
    }

    @Test("password recovery by PKCE link, then a new password")
    func recoveryByLink() async throws {
        try await withServer { server in
            let app = E2EApp(server: server)
            let manager = app.launch()
            await manager.restore()
            try await manager.email.sendSignInEmail(email: "forgetful@example.com")
            _ = try await manager.email.verify(
                type: .email, email: "forgetful@example.com", token: try server.server.emailCode(to: "forgetful@example.com"))
            await manager.signOut()
            try await manager.email.recoverPassword(email: "forgetful@example.com", redirectTo: URL(string: Self.callback))
            let redirect = try await server.server.followLink(to: "forgetful@example.com", type: "recovery")
            _ = try await manager.email.exchangeCode(from: redirect)
            _ = try await manager.account.update(UserUpdate(password: "a brand new password"))
            await manager.signOut()
            #expect(
                try await manager.account.signIn(email: "forgetful@example.com", password: "a brand new password").user.email
                    == "forgetful@example.com")
        }
    }

    @Test("an anonymous user keeps its id when it adds an address and confirms it with the code")
    func anonymousUpgrade() async throws {
        try await withServer { server in
            let manager = E2EApp(server: server).launch()
            await manager.restore()
            let anonymous = try await manager.account.signInAnonymously(data: ["cart": .string("3 items")])
            #expect(anonymous.user.isAnonymous)
            _ = try await manager.account.update(UserUpdate(email: "kept@example.com", password: "kept password 1"))
            let confirmed = try await manager.email.verify(
                type: .emailChange, email: "kept@example.com", token: try server.server.emailCode(to: "kept@example.com"))
            #expect(confirmed.user.id == anonymous.user.id)
            #expect(!confirmed.user.isAnonymous)
            #expect(confirmed.user.email == "kept@example.com")
        }
    }

    @Test("a secure email change: the new address's code answers nil and changes nothing, the current address's code changes it")
    func secureEmailChange() async throws {
        try await withServer { server in
            let manager = E2EApp(server: server).launch()
            await manager.restore()
            try await manager.email.sendSignInEmail(email: "before@example.com")
            _ = try await manager.email.verify(
                type: .email, email: "before@example.com", token: try server.server.emailCode(to: "before@example.com"))
            _ = try await manager.account.update(UserUpdate(email: "after@example.com"))
            let currentCode = try server.server.emailCode(to: "before@example.com")
            let newCode = try server.server.emailCode(to: "after@example.com")
            await #expect(throws: AuthFailure.self) { try await manager.email.confirmEmailChange(email: "before@example.com", token: newCode) }
            #expect(try await manager.email.confirmEmailChange(email: "after@example.com", token: newCode) == nil)
            #expect(try await manager.account.refreshUser().email == "before@example.com")
            let changed = try #require(try await manager.email.confirmEmailChange(email: "before@example.com", token: currentCode))
            #expect(changed.user.email == "after@example.com")
        }
    }

    @Test("with secure password change, an old session changes the password with the mailed nonce")
    func reauthentication() async throws {
        try await withServer { server in
            let app = E2EApp(server: server)
            let manager = app.launch()
            await manager.restore()
            try await manager.email.sendSignInEmail(email: "careful@example.com")
            _ = try await manager.email.verify(
                type: .email, email: "careful@example.com", token: try server.server.emailCode(to: "careful@example.com"))
            server.serverClock.advance(by: 25 * 3600)
            app.clock.advance(by: 25 * 3600)
            do {
                _ = try await manager.account.update(UserUpdate(password: "changed password 1"))
                Issue.record("an old session needs a nonce")
            } catch let failure as AuthFailure {
                #expect(failure.code == "reauthentication_needed")
            }
            try await manager.account.reauthenticate()
            let nonce = try server.server.emailCode(to: "careful@example.com")
            _ = try await manager.account.update(UserUpdate(password: "changed password 1", nonce: nonce))
        }
    }
}
