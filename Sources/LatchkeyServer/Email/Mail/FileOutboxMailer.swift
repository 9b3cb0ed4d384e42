import Foundation
import Logging

/// Writes each message as an RFC 5322 `.eml` file (mode 0600) into an outbox folder: the same
/// MIME text ``SMTPMailer`` sends (``MailComposer``), `multipart/alternative` when the message
/// has an HTML body.
///
/// The default mailer: a development server needs no mail relay, and the confirmation link
/// can be read from the file (tests do exactly that).
public struct FileOutboxMailer: Mailer {
    public let directory: URL
    private let sender: MailAddress
    private let logger: Logger

    /// - Parameter sender: `Name <address>` or `address`; the default sender when it cannot be parsed.
    public init(directory: URL, sender: String = ServerConfiguration.defaultMailSender, logger: Logger = Logger(label: "latchkey.mail")) {
        self.directory = directory
        self.sender = (try? MailAddress(parsing: sender)) ?? (try! MailAddress(parsing: ServerConfiguration.defaultMailSender))
        self.logger = logger
    }

    public func send(_ message: MailMessage) async throws {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let date = Date()
        let name = "\(Int(date.timeIntervalSince1970 * 1000))-\(UUID().lowercasedString).eml"
        let text = try MailComposer(from: sender, date: date).compose(message, validatingRecipient: false)
        let url = directory.appendingPathComponent(name)
        try Data(text.utf8).write(to: url, options: [.atomic])
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path)
        logger.info(
            "mail written to outbox", metadata: ["file": "\(name)", "subject": "\(message.subject)", "to_hash": "\(EmailHash.of(message.to))"])
    }
}
