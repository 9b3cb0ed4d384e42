import Foundation

/// An email the server sends: a sign-up confirmation, a recovery link, an email-change link.
public struct MailMessage: Sendable, Equatable {
    public var to: String
    public var subject: String
    /// The plain-text body (always sent).
    public var body: String
    /// An HTML rendering of the same message. When set, mailers that speak MIME send both as
    /// `multipart/alternative` (text first, so clients prefer the HTML part).
    public var html: String?

    public init(to: String, subject: String, body: String, html: String? = nil) {
        self.to = to
        self.subject = subject
        self.body = body
        self.html = html
    }
}

/// Delivers ``MailMessage``s. The default, ``FileOutboxMailer``, writes them to files;
/// ``SMTPMailer`` hands them to a mail server.
public protocol Mailer: Sendable {
    func send(_ message: MailMessage) async throws
}

/// An error from a ``Mailer`` meaning the message was not delivered (as opposed to an error of
/// the store or of the input). Routes answer it as GoTrue does a failed send: 500
/// `unexpected_failure` "Error sending … email". Descriptions never contain credentials.
public protocol MailDeliveryFailure: Error, CustomStringConvertible, Sendable {
    /// Whether trying again later may succeed (SMTP 4xx, a timeout, a dropped connection).
    var isTransient: Bool { get }
}
