import Foundation

/// An email the server sends: a sign-up confirmation, a recovery link, an email-change link.
public struct MailMessage: Sendable, Equatable {
    public var to: String
    public var subject: String
    public var body: String

    public init(to: String, subject: String, body: String) {
        self.to = to
        self.subject = subject
        self.body = body
    }
}

/// Delivers ``MailMessage``s. The default, ``FileOutboxMailer``, writes them to files; an SMTP
/// implementation plugs in here.
public protocol Mailer: Sendable {
    func send(_ message: MailMessage) async throws
}
