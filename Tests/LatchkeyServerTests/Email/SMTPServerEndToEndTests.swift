import Foundation
import LatchkeyTesting
import Logging
import Testing

@testable import LatchkeyServer

/// The real server, configured with an SMTP URL as `latchkey serve --smtp-url` configures it,
/// mailing through aiosmtpd.
@Suite("SMTP end to end", .enabled(if: SMTPTestServer.isAvailable, SMTPTestServer.unavailableReason))
struct SMTPServerEndToEndTests {
    /// aiosmtpd without TLS but with AUTH: the server's SMTP URL has credentials and
    /// `?starttls=optional`, which the client allows on loopback only.
    func smtpURL(_ smtp: SMTPTestServer) -> String {
        "smtp://\(SMTPTestServer.user):\(SMTPTestServer.password)@127.0.0.1:\(smtp.port)?starttls=optional"
    }

    @Test("POST /recover for an existing user: the mail reaches the SMTP server, and its link signs in")
    func recoveryMail() async throws {
        try await SMTPTestServer.with(.plain) { smtp in
            try await TestServer.with(configure: {
                $0.smtpURL = smtpURL(smtp)
                $0.mailFrom = "Latchkey <auth@latchkey.example>"
            }) { server in
                try await server.signUp("rita@example.com")
                let recover = try await server.request(.POST, "/recover", json: ["email": "rita@example.com"])
                #expect(recover.status == 200)
                let mail = try #require(try await smtp.waitForMessages().first)
                #expect(mail.authenticated && !mail.tls)
                #expect(mail.mailFrom == "auth@latchkey.example" && mail.recipients == ["rita@example.com"])
                #expect(
                    mail.data.contains("\r\nFrom: Latchkey <auth@latchkey.example>\r\n")
                        || mail.data.hasPrefix("From: Latchkey <auth@latchkey.example>\r\n"))
                #expect(mail.data.contains("\r\nTo: rita@example.com\r\n"))
                #expect(!server.outboxExists)
                let token = try #require(Self.token(in: mail.data, type: "recovery"))
                let verified = try await server.request(.POST, "/verify", json: ["type": "recovery", "token_hash": token])
                #expect(verified.status == 200)
            }
        }
    }

    @Test("a mail the SMTP server refuses: GoTrue's 500 'Error sending recovery email', logged without credentials")
    func failedSend() async throws {
        try await SMTPTestServer.with(.plain) { smtp in
            let logs = LogCapture()
            try await TestServer.with(logger: logs.logger, configure: { $0.smtpURL = smtpURL(smtp) }) { server in
                try await server.signUp("reject@example.com")
                let recover = try await server.request(.POST, "/recover", json: ["email": "reject@example.com"])
                recover.expectError(500, "unexpected_failure")
                #expect(recover["msg"] as? String == "Error sending recovery email")
                #expect(recover.text.contains("550") == false)
            }
            let lines = logs.lines
            #expect(lines.contains { $0.contains("email not sent") && $0.contains("550") && $0.contains("purpose=recovery") })
            #expect(lines.contains { $0.contains("mail goes over SMTP") && $0.contains("127.0.0.1:\(smtp.port)") })
            #expect(!lines.contains { $0.contains(SMTPTestServer.password) || $0.contains(SMTPTestServer.user + ":") })
            #expect(smtp.received().isEmpty)
        }
    }

    @Test("sign-up whose confirmation mail is refused: 500 'Error sending confirmation email'")
    func failedConfirmation() async throws {
        try await SMTPTestServer.with(.plain) { smtp in
            try await TestServer.with(configure: {
                $0.autoconfirm = false
                $0.smtpURL = smtpURL(smtp)
            }) { server in
                let signUp = try await server.request(.POST, "/signup", json: ["email": "reject@example.com", "password": "correct horse battery"])
                signUp.expectError(500, "unexpected_failure")
                #expect(signUp["msg"] as? String == "Error sending confirmation email")
            }
        }
    }

    /// The `token` query value of the `/verify` link of `type` in a message.
    static func token(in data: String, type: String) -> String? {
        guard let range = data.range(of: #"/verify\?[^\s]+"#, options: .regularExpression),
            let components = URLComponents(string: "http://x" + data[range]),
            components.queryItems?.first(where: { $0.name == "type" })?.value == type
        else { return nil }
        return components.queryItems?.first { $0.name == "token" }?.value
    }
}

extension TestServer {
    /// Whether the server wrote anything to its outbox folder.
    var outboxExists: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("outbox").path)
    }
}
