import Foundation
import Testing

@testable import LatchkeyServer

/// ``SMTPMailer`` against a real SMTP server: Debian's python3-aiosmtpd
/// (`Support/smtp_test_server.py`), with STARTTLS, AUTH and a self-signed certificate.
@Suite("SMTP delivery against aiosmtpd", .enabled(if: SMTPTestServer.isAvailable, SMTPTestServer.unavailableReason))
struct SMTPDeliveryTests {
    static let link = "http://127.0.0.1:9999/verify?token=abc123&type=recovery&redirect_to=https%3A%2F%2Fapp.example.com"

    @Test("STARTTLS + AUTH: the message arrives over TLS with its headers, body, link and a dot-stuffed line")
    func deliversOverStartTLS() async throws {
        try await SMTPTestServer.with(.startTLS) { server in
            let mailer = try server.mailer(try server.settings())
            let body = "Follow this link:\n\n\(Self.link)\n\n.a line that starts with a dot\n.\n..two dots\nend\n"
            try await mailer.send(MailMessage(to: "ada@example.com", subject: "Réinitialiser le mot de passe ✓", body: body))
            let mail = try #require(try await server.waitForMessages().first)
            #expect(mail.tls)
            #expect(mail.authenticated)
            #expect(mail.mailFrom == "no-reply@latchkey.example")
            #expect(mail.recipients == ["ada@example.com"])
            #expect(mail.helo == "[127.0.0.1]")
            let (headers, received) = try splitMessage(mail.data)
            #expect(headers["From"] == "Latchkey Tests <no-reply@latchkey.example>")
            #expect(headers["To"] == "ada@example.com")
            #expect(decodeRFC2047(try #require(headers["Subject"])) == "Réinitialiser le mot de passe ✓")
            #expect(headers["MIME-Version"] == "1.0")
            #expect(headers["Content-Type"] == "text/plain; charset=utf-8")
            #expect(headers["Content-Transfer-Encoding"] == "7bit")
            #expect(headers["Message-ID"]?.hasSuffix("@latchkey.example>") == true)
            #expect(headers["Date"].flatMap(parseRFC5322Date) != nil)
            // The server undid the dot-stuffing: the body is exactly what was sent.
            #expect(received == body.replacingOccurrences(of: "\n", with: "\r\n"))
            #expect(received.contains(Self.link))
        }
    }

    @Test("a non-ASCII body goes quoted-printable, and an HTML body makes multipart/alternative")
    func quotedPrintableAndAlternative() async throws {
        try await SMTPTestServer.with(.startTLS) { server in
            let mailer = try server.mailer(try server.settings(), sender: "Équipe Latchkey <team@latchkey.example>")
            try await mailer.send(
                MailMessage(
                    to: "bo@example.com", subject: "Hello", body: "Grüße — \(Self.link)\n",
                    html: "<p>Grüße — <a href=\"\(Self.link)\">reset</a></p>"))
            let mail = try #require(try await server.waitForMessages().first)
            let (headers, body) = try splitMessage(mail.data)
            #expect(decodeRFC2047(try #require(headers["From"])) == "Équipe Latchkey <team@latchkey.example>")
            #expect(headers["Subject"] == "Hello")
            let contentType = try #require(headers["Content-Type"])
            #expect(contentType.hasPrefix("multipart/alternative; boundary="))
            #expect(body.contains("Content-Type: text/plain; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable"))
            #expect(body.contains("Content-Type: text/html; charset=utf-8\r\nContent-Transfer-Encoding: quoted-printable"))
            #expect(body.contains("Gr=C3=BC=C3=9Fe =E2=80=94"))
            #expect(decodeQuotedPrintable(body).contains(Self.link))
            #expect(body.components(separatedBy: "\r\n").allSatisfy { $0.utf8.count <= 76 })
        }
    }

    @Test("implicit TLS (smtps://) delivers over TLS from the first byte")
    func implicitTLS() async throws {
        try await SMTPTestServer.with(.implicitTLS) { server in
            try await server.mailer(try server.settings(scheme: "smtps")).send(MailMessage(to: "cy@example.com", subject: "s", body: "b\n"))
            let mail = try #require(try await server.waitForMessages().first)
            #expect(mail.tls && mail.authenticated)
        }
    }

    @Test("STARTTLS is required: a server without it is refused before any mail command; ?starttls=optional goes on")
    func startTLSRequired() async throws {
        try await SMTPTestServer.with(.open) { server in
            let required = try server.mailer(try server.settings(credentials: false))
            let error = try await #require(throws: SMTPError.self) {
                try await required.send(MailMessage(to: "di@example.com", subject: "s", body: "b\n"))
            }
            #expect(error.stage == .startTLS && error.kind == .permanent)
            #expect(error.description.contains("starttls=optional"))
            #expect(server.received().isEmpty)

            let optional = try server.mailer(try server.settings(credentials: false, query: "?starttls=optional"))
            try await optional.send(MailMessage(to: "di@example.com", subject: "s", body: "b\n"))
            let mail = try #require(try await server.waitForMessages().first)
            #expect(!mail.tls)
        }
    }

    @Test("the server's certificate is checked: an untrusted one fails the TLS handshake (permanent)")
    func untrustedCertificate() async throws {
        try await SMTPTestServer.with(.startTLS) { server in
            let mailer = SMTPMailer(settings: try server.settings(), sender: try MailAddress(parsing: "a@latchkey.example"))
            let error = try await #require(throws: SMTPError.self) {
                try await mailer.send(MailMessage(to: "ed@example.com", subject: "s", body: "b\n"))
            }
            #expect(error.stage == .tlsHandshake && error.kind == .permanent)
            #expect(server.received().isEmpty)
        }
    }

    @Test("AUTH refused: a permanent auth error whose description holds neither user name nor password")
    func authRefused() async throws {
        try await SMTPTestServer.with(.refuseAuth) { server in
            let mailer = try server.mailer(try server.settings())
            let error = try await #require(throws: SMTPError.self) {
                try await mailer.send(MailMessage(to: "fa@example.com", subject: "s", body: "b\n"))
            }
            #expect(error.stage == .auth && error.kind == .permanent && error.code == 535)
            for secret in [SMTPTestServer.password, SMTPTestServer.user, Data(SMTPTestServer.password.utf8).base64EncodedString()] {
                #expect(!error.description.contains(secret))
                #expect(!String(reflecting: error).contains(secret))
            }
            #expect(!String(reflecting: try server.settings()).contains(SMTPTestServer.password))
            #expect(server.received().isEmpty)
        }
    }

    @Test("the connection dropped in the middle of DATA: a transient error")
    func droppedDuringData() async throws {
        try await SMTPTestServer.with(.dropData) { server in
            let mailer = try server.mailer(try server.settings())
            let error = try await #require(throws: SMTPError.self) {
                try await mailer.send(MailMessage(to: "gu@example.com", subject: "s", body: String(repeating: "line\n", count: 2000)))
            }
            #expect(error.kind == .transient)
            #expect(error.stage == .message)
            #expect(server.received().isEmpty)
        }
    }

    @Test("multi-line replies: a two-line 550 to RCPT is one permanent error with both lines; a 451 is transient")
    func multiLineRejection() async throws {
        try await SMTPTestServer.with(.startTLS) { server in
            let mailer = try server.mailer(try server.settings())
            let rejected = try await #require(throws: SMTPError.self) {
                try await mailer.send(MailMessage(to: "reject@example.com", subject: "s", body: "b\n"))
            }
            #expect(rejected.stage == .rcptTo && rejected.kind == .permanent && rejected.code == 550)
            #expect(rejected.message == "5.1.1 The mailbox does not exist. / 5.1.1 Second line of the same reply.")
            let later = try await #require(throws: SMTPError.self) {
                try await mailer.send(MailMessage(to: "later@example.com", subject: "s", body: "b\n"))
            }
            #expect(later.stage == .rcptTo && later.kind == .transient && later.code == 451)
            // The same mailer still delivers afterwards (a connection per message).
            try await mailer.send(MailMessage(to: "ok@example.com", subject: "s", body: "b\n"))
            #expect(try await server.waitForMessages().map(\.recipients) == [["ok@example.com"]])
        }
    }
}

/// Failures that need no SMTP server: timeouts and refused connections.
@Suite("SMTP connection failures")
struct SMTPConnectionFailureTests {
    @Test("a server that accepts but never greets: a transient timeout at the greeting, within the reply timeout")
    func replyTimeout() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        var settings = try SMTPSettings(url: "smtp://127.0.0.1:\(listener.port)")
        settings.replyTimeout = .milliseconds(300)
        let mailer = SMTPMailer(settings: settings, sender: try MailAddress(parsing: "a@latchkey.example"))
        let error = try await #require(throws: SMTPError.self) {
            try await mailer.send(MailMessage(to: "b@example.com", subject: "s", body: "b\n"))
        }
        #expect(error.stage == .greeting && error.kind == .transient)
        // The configured 300 ms reply timeout is the one that fired (the default is 30 s): the
        // error names it. (No wall-clock bound: a loaded machine may run the timer late.)
        #expect(error.message == "no reply within \(settings.replyTimeout)", "\(error.message)")
    }

    @Test("nothing listening: a transient connect error")
    func connectionRefused() async throws {
        let listener = try SilentListener()
        let port = listener.port
        listener.close()
        let mailer = SMTPMailer(settings: try SMTPSettings(url: "smtp://127.0.0.1:\(port)"), sender: try MailAddress(parsing: "a@latchkey.example"))
        let error = try await #require(throws: SMTPError.self) {
            try await mailer.send(MailMessage(to: "b@example.com", subject: "s", body: "b\n"))
        }
        #expect(error.stage == .connect && error.kind == .transient)
    }
}

// MARK: Reading what arrived

/// The headers (unfolded) and the body of a message.
func splitMessage(_ data: String) throws -> (headers: [String: String], body: String) {
    guard let end = data.range(of: "\r\n\r\n") else { throw TestFailure("no blank line after the headers") }
    var headers: [String: String] = [:]
    var last: String?
    for line in data[..<end.lowerBound].components(separatedBy: "\r\n") {
        if line.hasPrefix(" ") || line.hasPrefix("\t"), let last {
            headers[last, default: ""] += line
        } else if let colon = line.firstIndex(of: ":") {
            let name = String(line[..<colon])
            headers[name] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            last = name
        }
    }
    return (headers, String(data[end.upperBound...]))
}

/// Decodes the `=?UTF-8?B?…?=` words of a header value (whitespace between words dropped).
func decodeRFC2047(_ value: String) -> String {
    var output = ""
    var rest = Substring(value)
    var previousWasWord = false
    while let start = rest.range(of: "=?UTF-8?B?"), let end = rest[start.upperBound...].range(of: "?=") {
        let between = rest[..<start.lowerBound]
        if !(previousWasWord && between.allSatisfy(\.isWhitespace)) { output += between }
        let data = Data(base64Encoded: String(rest[start.upperBound..<end.lowerBound])) ?? Data()
        output += String(decoding: data, as: UTF8.self)
        rest = rest[end.upperBound...]
        previousWasWord = true
    }
    return output + rest
}

/// Decodes quoted-printable text (soft breaks and `=XX`).
func decodeQuotedPrintable(_ text: String) -> String {
    let joined = Array(text.replacingOccurrences(of: "=\r\n", with: "").utf8)
    var bytes: [UInt8] = []
    var index = 0
    while index < joined.count {
        if joined[index] == UInt8(ascii: "="), index + 2 < joined.count,
            let value = UInt8(String(decoding: joined[index + 1...index + 2], as: UTF8.self), radix: 16)
        {
            bytes.append(value)
            index += 3
        } else {
            bytes.append(joined[index])
            index += 1
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}

func parseRFC5322Date(_ value: String) -> Date? {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
    return formatter.date(from: value)
}
