import Foundation
import NIOCore
import Testing

@testable import LatchkeyServer

/// The SMTP pieces that need no server: reply parsing, dot-stuffing, MIME encoding, settings.
@Suite("SMTP protocol pieces")
struct SMTPUnitTests {
    @Test("multi-line replies: lines with '-' continue, the line with ' ' ends; codes must agree")
    func replyParser() throws {
        var parser = SMTPReplyParser()
        #expect(try parser.add("250-smtp.example.com") == nil)
        #expect(try parser.add("250-STARTTLS") == nil)
        #expect(try parser.add("250 AUTH PLAIN LOGIN") == SMTPReply(code: 250, lines: ["smtp.example.com", "STARTTLS", "AUTH PLAIN LOGIN"]))
        #expect(try parser.add("220") == SMTPReply(code: 220, lines: [""]))
        _ = try parser.add("250-first")
        #expect(throws: SMTPReplyParser.Failure.self) { try parser.add("251 second") }
        var fresh = SMTPReplyParser()
        #expect(throws: SMTPReplyParser.Failure.self) { try fresh.add("hello") }
        #expect(throws: SMTPReplyParser.Failure.self) { try fresh.add("250+x") }
        #expect(SMTPClient.authMechanisms(["SIZE 100", "AUTH LOGIN PLAIN", "AUTH=CRAM-MD5"]) == ["LOGIN", "PLAIN", "CRAM-MD5"])
    }

    @Test("DATA transparency: CRLF everywhere, leading dots doubled, CRLF.CRLF at the end")
    func dotStuffing() {
        func stuffed(_ text: String) -> String { String(buffer: SMTPDataEncoding.stuffed(text)) }
        #expect(stuffed("a\n.b\n.\nc") == "a\r\n..b\r\n..\r\nc\r\n.\r\n")
        #expect(stuffed(".first\r\nx\r\n") == "..first\r\nx\r\n.\r\n")
        #expect(stuffed("bare\rcr") == "bare\r\ncr\r\n.\r\n")
        #expect(stuffed("") == ".\r\n")
    }

    @Test("quoted-printable: =XX for non-ASCII and '=', trailing space encoded, lines of at most 76")
    func quotedPrintable() {
        #expect(MailComposer.quotedPrintable(Array("Grüße = 1 ".utf8)) == "Gr=C3=BC=C3=9Fe =3D 1=20")
        let long = MailComposer.quotedPrintable(Array(String(repeating: "é", count: 60).utf8))
        #expect(long.components(separatedBy: "\r\n").allSatisfy { $0.count <= 76 })
        #expect(decodeQuotedPrintable(long) == String(repeating: "é", count: 60))
    }

    @Test("headers: RFC 2047 words of at most 75 characters that never split a character; no header injection")
    func headers() throws {
        let subject = String(repeating: "Ünïcödé ✓ ", count: 12)
        let header = MailComposer.encodedHeader("Subject", subject)
        #expect(header.components(separatedBy: "\r\n ").allSatisfy { $0.count <= 76 })
        #expect(decodeRFC2047(String(header.dropFirst("Subject: ".count))) == subject)
        #expect(MailComposer.encodedHeader("Subject", "plain") == "Subject: plain")
        let composed = try MailComposer(from: MailAddress(parsing: "a@latchkey.example"))
            .compose(MailMessage(to: "b@example.com", subject: "hi\r\nBcc: evil@example.com", body: "x"))
        #expect(!composed.contains("\r\nBcc:"))
        #expect(throws: SMTPError.self) {
            try MailComposer(from: MailAddress(parsing: "a@latchkey.example")).compose(
                MailMessage(to: "b@example.com>\r\nRCPT TO:<c@x", subject: "s", body: "x"))
        }
        #expect(MailComposer.mailbox(try MailAddress(parsing: "\"Smith, Ann\" <ann@example.com>")) == "\"Smith, Ann\" <ann@example.com>")
    }

    @Test("SMTP URLs: schemes, default ports, starttls option; the password never prints")
    func settingsURL() throws {
        let smtp = try SMTPSettings(url: "smtp://user%40corp:p%3Ass@mail.example.com?starttls=optional")
        #expect(smtp.host == "mail.example.com" && smtp.port == 587 && smtp.security == .startTLS(required: false))
        #expect(smtp.username == "user@corp" && smtp.password?.value == "p:ss")
        #expect(smtp.description == "smtp://mail.example.com:587 (STARTTLS optional, AUTH)")
        #expect(!String(reflecting: smtp).contains("p:ss"))
        let smtps = try SMTPSettings(url: "smtps://mail.example.com")
        #expect(smtps.port == 465 && smtps.security == .implicitTLS && smtps.username == nil)
        #expect(try SMTPSettings(url: "smtp://h:25").security == .startTLS(required: true))
        for bad in [
            "http://u:topsecret@h", "smtp://u:topsecret@h?tls=off", "smtps://u:topsecret@h?starttls=optional", "smtp://:topsecret@h", "nonsense",
        ] {
            let error = #expect(throws: ConfigurationError.self) { try SMTPSettings(url: bad) }
            #expect(error?.description.contains("topsecret") == false)
        }
    }

    @Test("mail settings: the command line wins over LATCHKEY_*, which wins over GOTRUE_SMTP_*")
    func environment() throws {
        let goTrue = [
            "GOTRUE_SMTP_HOST": "smtp.example.com", "GOTRUE_SMTP_PORT": "2525", "GOTRUE_SMTP_USER": "me@example.com",
            "GOTRUE_SMTP_PASS": "p@ss:word", "GOTRUE_SMTP_ADMIN_EMAIL": "admin@example.com", "GOTRUE_SMTP_SENDER_NAME": "My \"App\"",
        ]
        let fromGoTrue = MailEnvironment.resolve(smtpURL: nil, mailFrom: nil, environment: goTrue)
        let settings = try SMTPSettings(url: try #require(fromGoTrue.smtpURL))
        #expect(settings.host == "smtp.example.com" && settings.port == 2525 && settings.security == .startTLS(required: false))
        #expect(settings.username == "me@example.com" && settings.password?.value == "p@ss:word")
        let sender = try MailAddress(parsing: try #require(fromGoTrue.mailFrom))
        #expect(sender.address == "admin@example.com" && sender.name == "My \"App\"")
        let implicit = MailEnvironment.resolve(smtpURL: nil, mailFrom: nil, environment: ["GOTRUE_SMTP_HOST": "h", "GOTRUE_SMTP_PORT": "465"])
        #expect(try SMTPSettings(url: try #require(implicit.smtpURL)).security == .implicitTLS)

        var both = goTrue
        both["LATCHKEY_SMTP_URL"] = "smtps://latchkey.example.com"
        both["LATCHKEY_MAIL_FROM"] = "env@example.com"
        #expect(MailEnvironment.resolve(smtpURL: nil, mailFrom: nil, environment: both) == ("smtps://latchkey.example.com", "env@example.com"))
        #expect(MailEnvironment.resolve(smtpURL: "smtp://cli", mailFrom: "cli@example.com", environment: both) == ("smtp://cli", "cli@example.com"))
        #expect(MailEnvironment.resolve(smtpURL: nil, mailFrom: nil, environment: [:]) == (nil, nil))
    }

    @Test("the configuration refuses a bad SMTP URL or sender before the server starts")
    func configurationValidation() throws {
        var configuration = ServerConfiguration(dataDirectory: FileManager.default.temporaryDirectory)
        configuration.smtpURL = "ftp://u:topsecret@h"
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.smtpURL = "smtp://u:topsecret@h"
        configuration.mailFrom = "not an address"
        #expect(throws: ConfigurationError.self) { try configuration.validate() }
        configuration.mailFrom = "Team <team@example.com>"
        try configuration.validate()
    }
}
