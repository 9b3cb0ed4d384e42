import Foundation
import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// Hands each message to an SMTP server (one connection per message): see ``SMTPSettings`` for
/// TLS and authentication, ``SMTPError`` for failures.
///
/// Logs say where mail went (host and port), never the user name or the password, and name
/// the recipient only by ``EmailHash``.
struct SMTPMailer: Mailer {
    let settings: SMTPSettings
    let sender: MailAddress
    private let client: SMTPClient
    private let logger: Logger

    /// - Parameters:
    ///   - tlsConfiguration: how the server's certificate is checked; by default against the
    ///     system's trust roots and the host name of the URL.
    ///   - eventLoopGroup: where connections run; by default NIO's shared singleton group.
    init(
        settings: SMTPSettings, sender: MailAddress,
        tlsConfiguration: TLSConfiguration = .makeClientConfiguration(),
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger = Logger(label: "latchkey.mail")
    ) {
        self.settings = settings
        self.sender = sender
        self.client = SMTPClient(settings: settings, tlsConfiguration: tlsConfiguration, eventLoopGroup: eventLoopGroup)
        self.logger = logger
    }

    func send(_ message: MailMessage) async throws {
        let metadata: Logger.Metadata = [
            "smtp": "\(settings.host):\(settings.port)", "subject": "\(message.subject)", "to_hash": "\(EmailHash.of(message.to))",
        ]
        do {
            let data = try MailComposer(from: sender).compose(message)
            let reply = try await client.deliver(from: sender.address, to: message.to, data: data)
            logger.info("mail sent over SMTP", metadata: metadata.merging(["reply": "\(reply)"], uniquingKeysWith: { $1 }))
        } catch {
            logger.error("mail not sent over SMTP", metadata: metadata.merging(["error": "\(error)"], uniquingKeysWith: { $1 }))
            throw error
        }
    }
}
