import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import LatchkeyServer

/// An email that cannot be delivered does not use up the address's email slot (one a minute,
/// five an hour): the request fails with GoTrue's 500, and asking again at once works once the
/// mail can go out. Checked for every request that mails a token.
@Suite("A failed mail gives its rate-limit slot back")
struct FailedMailRateLimitTests {
    /// The outbox, or a failure while `failing` is set.
    final class SwitchableMailer: Mailer {
        let outbox: FileOutboxMailer
        private let state = NIOLockedValueBox((failing: false, attempts: 0))

        init(directory: URL) {
            outbox = FileOutboxMailer(directory: directory.appendingPathComponent("outbox"))
        }

        var failing: Bool {
            get { state.withLockedValue { $0.failing } }
            set { state.withLockedValue { $0.failing = newValue } }
        }

        var attempts: Int { state.withLockedValue { $0.attempts } }

        func send(_ message: MailMessage) async throws {
            let failing = state.withLockedValue { state in
                state.attempts += 1
                return state.failing
            }
            if failing { throw Refused() }
            try await outbox.send(message)
        }

        struct Refused: MailDeliveryFailure {
            var isTransient: Bool { true }
            var description: String { "451 the test mailer refuses" }
        }
    }

    /// A server with rate limits on (the defaults: one email a minute per address and kind)
    /// and a mailer that fails on demand.
    static func with(_ body: (TestServer, SwitchableMailer) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-failing-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: directory) }
        let mailer = SwitchableMailer(directory: directory)
        try await TestServer.with(mailer: mailer, configure: { $0.autoconfirm = false }) { server in
            try await body(server, mailer)
        }
    }

    /// Sends `request` with the mailer failing (500 `unexpected_failure`, "Error sending <name>
    /// email"), then again at once with it working (200: the slot was given back), then once
    /// more (429: the limiter is on and counted the delivered mail).
    static func expectSlotReturned(
        _ server: TestServer, _ mailer: SwitchableMailer, mailName: String, sourceLocation: SourceLocation = #_sourceLocation,
        _ request: () async throws -> TestResponse
    ) async throws {
        mailer.failing = true
        let attempts = mailer.attempts
        let failed = try await request()
        #expect(failed.status == 500, "\(failed.text)", sourceLocation: sourceLocation)
        #expect(failed["msg"] as? String == "Error sending \(mailName) email", "\(failed.text)", sourceLocation: sourceLocation)
        #expect(mailer.attempts == attempts + 1, "the mail was tried", sourceLocation: sourceLocation)
        mailer.failing = false
        let retried = try await request()
        #expect(retried.status == 200, "retry at once after a failed mail: \(retried.text)", sourceLocation: sourceLocation)
        let again = try await request()
        #expect(again.status == 429, "the delivered mail took the slot: \(again.text)", sourceLocation: sourceLocation)
        #expect(again.errorCode == "over_email_send_rate_limit", sourceLocation: sourceLocation)
    }

    @Test("sign-up (new address, then the same unconfirmed address again)")
    func signUp() async throws {
        try await Self.with { server, mailer in
            // A new address: the failed attempt leaves no account (sign-up is atomic with its
            // link), so the retry is a new sign-up too.
            try await Self.expectSlotReturned(server, mailer, mailName: "confirmation") {
                try await server.request(.POST, "/signup", json: ["email": "new@example.com", "password": "correct horse battery"])
            }
            let files = try FileManager.default.contentsOfDirectory(atPath: mailer.outbox.directory.path)
            #expect(files.count == 1, "one mail delivered: \(files)")
        }
        try await Self.with { server, mailer in
            #expect(
                try await server.request(.POST, "/signup", json: ["email": "again@example.com", "password": "correct horse battery"]).status == 200)
            server.clock.advance(by: 61)
            try await Self.expectSlotReturned(server, mailer, mailName: "confirmation") {
                try await server.request(.POST, "/signup", json: ["email": "again@example.com", "password": "correct horse battery"])
            }
        }
    }

    @Test("resend of the confirmation and of an email change")
    func resend() async throws {
        try await Self.with { server, mailer in
            #expect(
                try await server.request(.POST, "/signup", json: ["email": "resend@example.com", "password": "correct horse battery"]).status == 200)
            server.clock.advance(by: 61)
            try await Self.expectSlotReturned(server, mailer, mailName: "confirmation") {
                try await server.request(.POST, "/resend", json: ["type": "signup", "email": "resend@example.com"])
            }
        }
        try await Self.with { server, mailer in
            let session = try await Self.confirmedSession(server, "mover@example.com")
            #expect(try await server.request(.PUT, "/user", json: ["email": "moved@example.com"], bearer: session.accessToken).status == 200)
            server.clock.advance(by: 61)
            try await Self.expectSlotReturned(server, mailer, mailName: "email change") {
                try await server.request(.POST, "/resend", json: ["type": "email_change", "email": "mover@example.com"])
            }
        }
    }

    @Test("recovery, magic link (existing and new address) and email change")
    func links() async throws {
        try await Self.with { server, mailer in
            _ = try await Self.confirmedSession(server, "rita@example.com")
            try await Self.expectSlotReturned(server, mailer, mailName: "recovery") {
                try await server.request(.POST, "/recover", json: ["email": "rita@example.com"])
            }
            // Magic links share the recovery's slot (one token kind, as in GoTrue): a minute later.
            server.clock.advance(by: 61)
            try await Self.expectSlotReturned(server, mailer, mailName: "magic link") {
                try await server.request(.POST, "/otp", json: ["email": "rita@example.com"])
            }
            // An unknown address signs up through /otp and gets a confirmation.
            try await Self.expectSlotReturned(server, mailer, mailName: "confirmation") {
                try await server.request(.POST, "/otp", json: ["email": "newcomer@example.com"])
            }
            let session = try await Self.confirmedSession(server, "changer@example.com")
            try await Self.expectSlotReturned(server, mailer, mailName: "email change") {
                try await server.request(.PUT, "/user", json: ["email": "changed@example.com"], bearer: session.accessToken)
            }
        }
    }

    @Test("/otp for a new address whose confirmation cannot be mailed keeps no account, as GoTrue's sign-up and mail in one transaction")
    func otpSignUpNotMailed() async throws {
        try await Self.with { server, mailer in
            mailer.failing = true
            let failed = try await server.request(.POST, "/otp", json: ["email": "newcomer@example.com"])
            #expect(failed.status == 500, "\(failed.text)")
            let users = try await server.request(.GET, "/admin/users", bearer: server.server.serviceRoleKey)
            #expect(users.headers.first(name: "X-Total-Count") == "0", "no account is left behind: \(users.text)")
        }
    }

    @Test("reauthentication nonce")
    func reauthentication() async throws {
        try await Self.with { server, mailer in
            let session = try await Self.confirmedSession(server, "nonce@example.com")
            try await Self.expectSlotReturned(server, mailer, mailName: "reauthentication") {
                try await server.request(.GET, "/reauthenticate", bearer: session.accessToken)
            }
        }
    }

    /// A confirmed account with a session, made through the admin API (no email).
    static func confirmedSession(_ server: TestServer, _ email: String) async throws -> TestSession {
        let created = try await server.request(
            .POST, "/admin/users", json: ["email": email, "password": "correct horse battery", "email_confirm": true],
            bearer: server.server.serviceRoleKey)
        guard created.status == 200 else { throw TestFailure("admin create: \(created.status) \(created.text)") }
        guard let session = TestSession(try await server.signIn(email)) else { throw TestFailure("sign-in failed") }
        return session
    }
}
