import Foundation
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import Latchkey

@Suite("End to end: accounts, errors and logs")
struct AccountFlowTests {
    @Test("Sign-up without auto-confirm needs confirmation; signing in first says 'verify your email'")
    func confirmationRequired() async throws {
        try await withTestServer(autoconfirm: false) { server in
            let app = E2EApp(server: server)
            let manager = app.launch()
            await manager.restore()
            let result = try await manager.account.signUp(email: "new@example.com", password: "correct horse battery")
            guard case .confirmationRequired(let user) = result else {
                Issue.record("expected confirmationRequired, got \(result)")
                return
            }
            #expect(user.email == "new@example.com")
            #expect(!user.isEmailConfirmed)
            do {
                try await manager.account.signIn(email: "new@example.com", password: "correct horse battery")
                Issue.record("unconfirmed sign-in must fail")
            } catch let failure as AuthFailure {
                #expect(failure.category == .emailNotConfirmed)
                #expect(failure.presentation.action == .resendVerification)
            }
            #expect(await manager.state == .signedOut(.noSession))
        }
    }

    @Test("An existing account: sign-up fails with accountExists")
    func accountExists() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            let (manager, session) = try await app.signUp()
            await #expect(throws: AuthFailure(.accountExists, code: "user_already_exists", status: 422)) {
                try await manager.account.signUp(email: try #require(session.user.email), password: "another password 1")
            }
        }
    }

    @Test("Too many wrong passwords → rate limited with the seeds' message and a retry-after")
    func rateLimited() async throws {
        try await withTestServer(rateLimits: .default) { server in
            let app = E2EApp(server: server)
            let (manager, session) = try await app.signUp()
            await manager.signOut()
            let email = try #require(session.user.email)
            var last: AuthFailure?
            for _ in 0..<12 {
                do {
                    try await manager.account.signIn(email: email, password: "wrong password")
                } catch let failure as AuthFailure {
                    last = failure
                    if case .rateLimited = failure.category { break }
                }
            }
            let failure = try #require(last)
            guard case .rateLimited(let retryAfter) = failure.category else {
                Issue.record("expected rate limiting, got \(failure)")
                return
            }
            #expect((retryAfter ?? 0) > 0)
            #expect(failure.presentation.message == "Too many login attempts. Please wait a few minutes and try again.")
        }
    }

    @Test("Profile update reaches the server and the store")
    func updateProfile() async throws {
        try await withTestServer { server in
            let app = E2EApp(server: server)
            let (manager, _) = try await app.signUp()
            let user = try await manager.account.update(UserUpdate(data: ["display_name": .string("Ada")]))
            #expect(user.userMetadata["display_name"] == .string("Ada"))
            let relaunched = await app.launch().restore()
            #expect(relaunched.session?.user.userMetadata["display_name"] == .string("Ada"))
            #expect(try await manager.account.refreshUser().userMetadata["display_name"] == .string("Ada"))
        }
    }

    @Test("No token, password or email ever appears in the logs of a whole session's life")
    func logsCarryNoSecrets() async throws {
        try await withTestServer { server in
            let logs = LogCapture()
            let email = "secret.person@example.com"
            let password = "correct horse battery"
            let app = E2EApp(server: server, logger: logs.logger)
            let (manager, first) = try await app.signUp(email: email, password: password)
            _ = try? await manager.account.signIn(email: email, password: "wrong password 123")
            app.clock.advance(by: 2 * 3600)
            let refreshed = try await manager.session()
            await manager.setPhase(.background)
            app.clock.advance(by: 2 * 3600)
            await manager.setPhase(.active)
            let last = try #require(await manager.currentSession)
            await manager.signOut()
            _ = await app.launch().restore()

            let lines = logs.lines
            #expect(lines.count >= 5)
            let secrets = [
                first.accessToken, first.refreshToken, refreshed.accessToken, refreshed.refreshToken,
                last.accessToken, last.refreshToken, password, "wrong password 123", email,
            ]
            for line in lines {
                for secret in secrets {
                    #expect(!line.contains(secret), "secret in log line: \(line.prefix(80))")
                }
            }
            #expect(lines.contains { $0.contains(LogRedaction.email(email)) }, "emails appear hashed")
            #expect(lines.contains { $0.contains("user_id=\(first.user.id)") }, "user id metadata")
        }
    }
}
