import Foundation
import LatchkeyTesting
import LatchkeyWire
import Testing

@testable import LatchkeyServer

/// Mail templates: GoTrue's `{{ .Variable }}` syntax, substitution only, checked when the
/// server starts.
@Suite("Mail templates")
struct MailTemplateTests {
    static let allowed: Set<String> = MailTemplates.Kind.confirmation.variables

    static func parse(_ text: String, kind: MailTemplates.Kind = .confirmation) throws(ConfigurationError) -> MailTemplate {
        try MailTemplate.parse(text, source: "t.txt", allowed: kind.variables, kind: kind.rawValue)
    }

    static let values = MailTemplate.Values(
        named: ["Token": "123456", "ConfirmationURL": "https://auth.example/verify?token=abc&type=signup", "Email": "o'brien@example.com"],
        data: ["name": .string("<Ada & Co>"), "age": .number(36), "vip": .bool(true)])

    @Test("GoTrue's spellings substitute; Go's trim markers trim; metadata keys resolve")
    func substitution() throws {
        let template = try Self.parse(
            "Hi {{ .Data.name }} ({{.Data.age}}, {{ .Data.vip }}{{ .Data.missing }}):\n  {{- .Token -}}  \n{{.ConfirmationURL}}")
        #expect(
            template.render(Self.values, escapingHTML: false) == "Hi <Ada & Co> (36, true):123456https://auth.example/verify?token=abc&type=signup")
    }

    @Test("HTML values are escaped; text values are not")
    func escaping() throws {
        let template = try Self.parse("<a href=\"{{ .ConfirmationURL }}\">{{ .Data.name }}</a> {{ .Email }}")
        #expect(
            template.render(Self.values, escapingHTML: true)
                == "<a href=\"https://auth.example/verify?token=abc&amp;type=signup\">&lt;Ada &amp; Co&gt;</a> o&#39;brien@example.com")
        #expect(
            template.render(Self.values, escapingHTML: false)
                == "<a href=\"https://auth.example/verify?token=abc&type=signup\"><Ada & Co></a> o'brien@example.com")
    }

    @Test("unknown variables, unsupported constructs and unclosed tags are refused with the line")
    func refusals() {
        let cases: [(String, MailTemplates.Kind, String)] = [
            ("line one\nline two {{ .ConfirmationUrl }}", .confirmation, "t.txt:2: the confirmation email has no {{ .ConfirmationUrl }}"),
            ("{{ .ConfirmationURL }}", .reauthentication, "t.txt:1: the reauthentication email has no {{ .ConfirmationURL }}"),
            ("{{ .NewEmail }}", .recovery, "t.txt:1: the recovery email has no {{ .NewEmail }}"),
            ("a\n\n{{ if .Token }}x{{ end }}", .confirmation, "t.txt:3: {{ if .Token }} is not supported"),
            ("{{ range .Data }}", .confirmation, "t.txt:1: {{ range .Data }} is not supported"),
            ("{{/* a comment */}}", .confirmation, "is not supported"),
            ("{{ .Token | html }}", .confirmation, "is not supported"),
            ("{{ .Data }}", .confirmation, "t.txt:1: {{ .Data }} alone"),
            ("{{ .Data.a.b }}", .confirmation, "is not supported"),
            ("ok\n{{ .Token ", .confirmation, "t.txt:2: \"{{\" is not closed"),
        ]
        for (text, kind, message) in cases {
            do {
                _ = try Self.parse(text, kind: kind)
                Issue.record("accepted: \(text)")
            } catch {
                #expect(String(describing: error).contains(message), "\(text): \(String(describing: error))")
            }
        }
        // The email change has GoTrue's NewEmail and SendingTo; everything has Data.
        #expect(throws: Never.self) { try Self.parse("{{ .NewEmail }} {{ .SendingTo }} {{ .Data.x }}", kind: .emailChange) }
        #expect(throws: Never.self) { try Self.parse("{{ .Token }} {{ .Email }} {{ .SiteURL }}", kind: .reauthentication) }
    }

    @Test("the defaults parse and carry the link and the code in both parts")
    func defaults() throws {
        for purpose in EmailPurpose.allCases {
            let message = MailTemplates.defaults.message(
                purpose,
                MailTemplates.Context(
                    to: "to@example.com", email: "ada@example.com",
                    confirmationURL: purpose == .reauthentication ? nil : "http://127.0.0.1:9999/verify?token=t0k&type=signup&redirect_to=http://a/",
                    token: "654321", tokenHash: "t0k", siteURL: "http://a", redirectTo: "http://a/", newEmail: "to@example.com", data: [:]))
            let html = try #require(message.html)
            #expect(message.body.contains("this code: 654321") || message.body.contains("you: 654321"), "\(purpose): \(message.body)")
            #expect(html.contains(">654321</p>"), "\(purpose)")
            #expect(!html.contains("this code: 654321"), "the README's sed reads the code from the text part only")
            if purpose != .reauthentication {
                #expect(message.body.contains("\nhttp://127.0.0.1:9999/verify?token=t0k&type=signup&redirect_to=http://a/\n"))
                #expect(html.contains("href=\"http://127.0.0.1:9999/verify?token=t0k&amp;type=signup&amp;redirect_to=http://a/\""))
            }
        }
    }

    @Test("a folder replaces parts by file name; the rest stay default; an empty .html sends text only")
    func overrides() throws {
        try Self.withFolder([
            "recovery.subject": "Reset for {{ .Email }}\n",
            "recovery.txt": "Code {{ .Token }}",
            "magic_link.html": "  \n",
            "README.md": "notes, ignored",
        ]) { folder in
            let templates = try MailTemplates.load(overrides: folder)
            let context = MailTemplates.Context(
                to: "a@example.com", email: "a@example.com", confirmationURL: "http://x/verify?token=1", token: "111222", tokenHash: "1",
                siteURL: "http://x", redirectTo: "http://x", newEmail: nil, data: [:])
            let recovery = templates.message(.recovery, context)
            #expect(recovery.subject == "Reset for a@example.com")
            #expect(recovery.body == "Code 111222")
            #expect(recovery.html == MailTemplates.defaults.message(.recovery, context).html, "the HTML part stays the default")
            #expect(templates.message(.magicLink, context).html == nil)
            #expect(templates.message(.signup, context) == MailTemplates.defaults.message(.signup, context))
        }
    }

    @Test("bad folders and files are refused by name")
    func badFiles() throws {
        let cases: [([String: String], String)] = [
            (["confirmaton.txt": "x"], "confirmaton.txt: not a mail template name"),
            (["recovery.htm": "x"], "recovery.htm: not a mail template name"),
            (["invite.subject": "two\nlines"], "invite.subject: a subject is one line"),
            (["invite.subject": "  "], "invite.subject: the subject is empty"),
            (["invite.txt": "\n"], "invite.txt: the plain-text body is empty"),
            (["email_change.html": "<p>\n{{ .NewEmail }}\n{{ .Tokn }}</p>"], "email_change.html:3: the email_change email has no {{ .Tokn }}"),
        ]
        for (files, message) in cases {
            Self.withFolder(files) { folder in
                #expect(throws: ConfigurationError.self) { try MailTemplates.load(overrides: folder) }
                do {
                    _ = try MailTemplates.load(overrides: folder)
                } catch {
                    #expect(String(describing: error).contains(folder.path), "names the file: \(String(describing: error))")
                    #expect(String(describing: error).contains(message), "\(String(describing: error))")
                }
            }
        }
        try Self.withFolder(["recovery.txt": ""]) { folder in
            try Data([0xC3, 0x28]).write(to: folder.appendingPathComponent("recovery.txt"))
            #expect(throws: ConfigurationError("\(folder.path)/recovery.txt: is not UTF-8 text")) { try MailTemplates.load(overrides: folder) }
        }
        #expect(throws: ConfigurationError.self) { try MailTemplates.load(overrides: URL(fileURLWithPath: "/nonexistent/mail-templates")) }
    }

    @Test("a server with a broken template does not start, and says which file and line")
    func serverRefusesToStart() async throws {
        try await Self.withFolder(["confirmation.html": "<p>\n{{ if .Token }}{{ .Token }}{{ end }}</p>"]) { folder in
            do {
                let server = try await TestAuthServer.start { $0.mailTemplatesDirectory = folder }
                try await server.shutdown()
                Issue.record("the server started")
            } catch let error as ConfigurationError {
                #expect(String(describing: error).contains("\(folder.path)/confirmation.html:2:"), "\(String(describing: error))")
                #expect(String(describing: error).contains("only substitute variables"))
            }
        }
    }

    static func withFolder<T>(_ files: [String: String], _ body: (URL) async throws -> T) async rethrows -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-mail-templates-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, text) in files { try? Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return try await body(folder)
    }

    static func withFolder<T>(_ files: [String: String], _ body: (URL) throws -> T) rethrows -> T {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-mail-templates-\(UUID().uuidString.prefix(8))")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (name, text) in files { try? Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        return try body(folder)
    }
}

extension ConfigurationError: Equatable {
    public static func == (lhs: ConfigurationError, rhs: ConfigurationError) -> Bool { lhs.description == rhs.description }
}
