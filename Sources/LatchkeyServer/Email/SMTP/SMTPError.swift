/// Why an SMTP delivery failed: at which step, whether a later attempt may succeed, and what
/// the server said. Never holds the user name or the password (server text that repeats the
/// password is redacted before it gets here).
struct SMTPError: MailDeliveryFailure, Equatable {
    /// The step of the conversation that failed.
    enum Stage: String, Sendable {
        case connect, greeting, ehlo
        case startTLS = "starttls"
        case tlsHandshake = "tls handshake"
        case auth
        case mailFrom = "mail from"
        case rcptTo = "rcpt to"
        case data
        case message = "message body"
        case quit
    }

    enum Kind: Sendable, Equatable {
        /// Try again later: a 4xx reply, a timeout, a refused or dropped connection.
        case transient
        /// Retrying the same message will fail again: a 5xx reply, a TLS or AUTH requirement
        /// not met, a protocol violation, a refused address.
        case permanent
    }

    var stage: Stage
    var kind: Kind
    /// The server's reply code, when the server answered.
    var code: Int?
    /// What went wrong: the server's reply text, or our own words.
    var message: String

    init(stage: Stage, kind: Kind, code: Int? = nil, message: String) {
        self.stage = stage
        self.kind = kind
        self.code = code
        self.message = message
    }

    var isTransient: Bool { kind == .transient }

    var description: String {
        let kindText = kind == .transient ? "transient" : "permanent"
        return "SMTP \(stage.rawValue) failed (\(kindText)\(code.map { ", \($0)" } ?? "")): \(message)"
    }

    /// The error for a reply with an unexpected code: 4xx transient, anything else permanent.
    static func rejected(_ reply: SMTPReply, at stage: Stage) -> SMTPError {
        SMTPError(stage: stage, kind: (400..<500).contains(reply.code) ? .transient : .permanent, code: reply.code, message: reply.text)
    }
}
