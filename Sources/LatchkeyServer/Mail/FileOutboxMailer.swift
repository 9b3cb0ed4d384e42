import Foundation
import Logging

/// Writes each message as an RFC 5322 `.eml` file (mode 0600) into an outbox folder.
///
/// The default mailer: a development server needs no mail relay, and the confirmation link
/// can be read from the file (tests do exactly that).
public struct FileOutboxMailer: Mailer {
    public let directory: URL
    private let sender: String
    private let logger: Logger

    public init(directory: URL, sender: String = "Latchkey <no-reply@latchkey.invalid>", logger: Logger = Logger(label: "latchkey.mail")) {
        self.directory = directory
        self.sender = sender
        self.logger = logger
    }

    public func send(_ message: MailMessage) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let date = Date()
        let name = "\(Int(date.timeIntervalSince1970 * 1000))-\(UUID().uuidString.lowercased()).eml"
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss Z"
        let text = [
            "From: \(sender)",
            "To: \(Self.headerSafe(message.to))",
            "Subject: \(Self.headerSafe(message.subject))",
            "Date: \(formatter.string(from: date))",
            "Message-ID: <\(UUID().uuidString.lowercased())@latchkey.invalid>",
            "MIME-Version: 1.0",
            "Content-Type: text/plain; charset=utf-8",
            "Content-Transfer-Encoding: 8bit",
            "",
            message.body.replacingOccurrences(of: "\r\n", with: "\n").replacingOccurrences(of: "\n", with: "\r\n"),
        ].joined(separator: "\r\n")
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url, options: [.atomic])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        logger.info("mail written to outbox", metadata: ["file": "\(name)", "subject": "\(message.subject)", "to_hash": "\(EmailHash.of(message.to))"])
    }

    /// Keeps a header value on one line, so user input cannot add headers.
    static func headerSafe(_ value: String) -> String {
        value.replacingOccurrences(of: "\r", with: " ").replacingOccurrences(of: "\n", with: " ")
    }
}
