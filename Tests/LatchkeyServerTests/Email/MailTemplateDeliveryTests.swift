import Foundation
import LatchkeyTesting
import Testing

import class LatchkeyTestSupport.ChildProcess

@testable import LatchkeyServer

/// Templated mails as they arrive: over SMTP at a real server (aiosmtpd), and in the outbox;
/// read back by Python's `email` package as a mail client would, and by every helper that reads
/// the outbox (LatchkeyTesting, the README's `sed`).
@Suite("Mail templates delivered", .enabled(if: MailClientView.python != nil, "no python3 to read the mails with"))
struct MailTemplateDeliveryTests {
    /// Templates with non-ASCII text, every confirmation variable, a metadata key, and HTML
    /// that a value could break if it were not escaped.
    static let templates: [String: String] = [
        "confirmation.subject": "Bestätige deine Anmeldung, {{ .Data.name }} ✓",
        "confirmation.txt": """
        Grüße {{ .Data.name }}!

        Bestätige {{ .Email }} über diesen Link:
        {{ .ConfirmationURL }}

        Oder gib diesen Code ein: {{ .Token }}
        (token_hash {{ .TokenHash }}, weiter zu {{ .RedirectTo }}, Seite {{ .SiteURL }})
        \(String(repeating: "Eine sehr lange Zeile mit Umlauten äöü, ", count: 6))

        """,
        "confirmation.html": """
        <html><body>
        <p>Grüße <b>{{ .Data.name }}</b>!</p>
        <p><a href="{{ .ConfirmationURL }}">Bestätigen</a></p>
        <p>Code: <strong>{{ .Token }}</strong></p>
        <p>{{ .SiteURL }}/auth/confirm?token_hash={{ .TokenHash }}&type=email</p>
        </body></html>

        """,
    ]

    @Test("over SMTP: multipart/alternative with both parts, the link and the code; a client decodes it; the code and the link verify")
    func smtp() async throws {
        guard SMTPTestServer.isAvailable else { return }
        try await SMTPTestServer.with(.plain) { smtp in
            try await MailTemplateTests.withFolder(Self.templates) { folder in
                try await TestServer.with(configure: {
                    $0.autoconfirm = false
                    $0.smtpURL = "smtp://\(SMTPTestServer.user):\(SMTPTestServer.password)@127.0.0.1:\(smtp.port)?starttls=optional"
                    $0.mailFrom = "Anmeldung <auth@latchkey.example>"
                    $0.siteURL = "https://app.example"
                    $0.mailTemplatesDirectory = folder
                }) { server in
                    let signUp = try await server.request(
                        .POST, "/signup",
                        json: ["email": "ada@example.com", "password": "correct horse battery", "data": ["name": "Ada <& Co>"]])
                    #expect(signUp.status == 200, "\(signUp.text)")
                    let received = try #require(try await smtp.waitForMessages().first)
                    let mail = try await MailClientView.read(received.data)
                    #expect(mail.defects.isEmpty, "\(mail.defects)")
                    #expect(mail.contentType == "multipart/alternative")
                    #expect(mail.parts.map(\.contentType) == ["text/plain", "text/html"])
                    #expect(
                        mail.parts.allSatisfy { $0.charset == "utf-8" && $0.transferEncoding == "quoted-printable" }, "non-ASCII parts are encoded")
                    #expect(mail.longestLine <= 78, "lines within RFC 5322's 78 (quoted-printable soft breaks): \(mail.longestLine)")
                    #expect(mail.bareLineFeeds == 0)
                    #expect(mail.subject == "Bestätige deine Anmeldung, Ada <& Co> ✓")
                    #expect(mail.from == "Anmeldung <auth@latchkey.example>")

                    let text = try #require(mail.text)
                    let html = try #require(mail.html)
                    #expect(text.hasPrefix("Grüße Ada <& Co>!"), "text values are not escaped")
                    #expect(html.contains("<b>Ada &lt;&amp; Co&gt;</b>"), "HTML values are escaped")
                    let link = try #require(TestAuthServer.verifyLink(in: text))
                    let query = URLComponents(url: link, resolvingAgainstBaseURL: false)?.queryItems ?? []
                    let token = try #require(query.first { $0.name == "token" }?.value)
                    #expect(query.first { $0.name == "type" }?.value == "signup")
                    #expect(html.contains("href=\"\(link.absoluteString.replacingOccurrences(of: "&", with: "&amp;"))\""))
                    #expect(text.contains("token_hash \(token), weiter zu https://app.example, Seite https://app.example"))
                    #expect(html.contains("https://app.example/auth/confirm?token_hash=\(token)&type=email"))
                    let code = try #require(text.firstMatch(of: /Code ein: ([0-9]{6})/)?.output.1)
                    #expect(html.contains("<strong>\(code)</strong>"))

                    // The code confirms the address (GoTrue's `{{ .Token }}`); the link's token is
                    // then spent with it (one token, as in GoTrue).
                    let verified = try await server.request(
                        .POST, "/verify", json: ["type": "signup", "email": "ada@example.com", "token": String(code)])
                    #expect(verified.status == 200, "\(verified.text)")
                }
            }
        }
    }

    @Test("the outbox holds the same MIME: both parts for a client, and every outbox reader finds the link and the code")
    func outbox() async throws {
        try await TestServer.with(configure: { $0.autoconfirm = false }) { server in
            #expect(
                try await server.request(.POST, "/signup", json: ["email": "eve@example.com", "password": "correct horse battery"]).status == 200)
            let raw = try #require(try server.outbox().last)
            let mail = try await MailClientView.read(raw)
            #expect(mail.defects.isEmpty, "\(mail.defects)")
            #expect(mail.contentType == "multipart/alternative")
            #expect(mail.parts.map(\.contentType) == ["text/plain", "text/html"])
            #expect(mail.subject == "Confirm your signup" && mail.to == "eve@example.com")
            #expect(mail.bareLineFeeds == 0)
            let code = try server.emailCode(to: "eve@example.com")
            #expect(mail.text?.contains("Or enter this code: \(code)") == true)
            #expect(mail.html?.contains(">\(code)</p>") == true)
            let token = try server.linkToken(to: "eve@example.com", type: "signup")
            #expect(mail.html?.contains("token=\(token)&amp;type=signup") == true)

            // The README's walkthrough reads the code with sed from the raw file: exactly once.
            let file = try #require(try FileManager.default.contentsOfDirectory(atPath: server.server.outboxDirectory.path).first)
            let (status, output) = try await ChildProcess.run(
                executable: "/bin/sed",
                arguments: ["-n", #"s/.*this code: \([0-9]\{6\}\).*/\1/p"#, server.server.outboxDirectory.appendingPathComponent(file).path],
                environment: [:])
            #expect(status == 0 && String(decoding: output, as: UTF8.self) == "\(code)\n")

            // LatchkeyTesting's MIME reading agrees with Python's.
            let parsed = try #require(try server.server.outboxMails().last)
            #expect(parsed.text == mail.text?.replacingOccurrences(of: "\r\n", with: "\n"))
            #expect(parsed.html == mail.html?.replacingOccurrences(of: "\r\n", with: "\n"))

            // The link signs in, as a browser opening it would.
            let landing = try await server.server.followLink(to: "eve@example.com", type: "signup")
            #expect(landing.absoluteString.contains("welcome") || landing.fragment?.contains("access_token") == true, "\(landing)")
        }
    }

    @Test("a non-ASCII template in the outbox: quoted-printable, still read by the helpers")
    func outboxNonASCII() async throws {
        try await MailTemplateTests.withFolder(Self.templates) { folder in
            try await TestServer.with(configure: {
                $0.autoconfirm = false
                $0.mailTemplatesDirectory = folder
            }) { server in
                #expect(
                    try await server.request(.POST, "/signup", json: ["email": "zoe@example.com", "password": "correct horse battery"]).status == 200)
                let parsed = try #require(try server.server.outboxMails().last)
                #expect(parsed.subject.hasPrefix("Bestätige deine Anmeldung"))
                #expect(parsed.raw.contains("Content-Transfer-Encoding: quoted-printable"))
                let token = try server.linkToken(to: "zoe@example.com", type: "signup")
                #expect(parsed.text.contains("token_hash \(token),"))
                let verified = try await server.request(.POST, "/verify", json: ["type": "signup", "token_hash": token])
                #expect(verified.status == 200, "\(verified.text)")
            }
        }
    }
}
