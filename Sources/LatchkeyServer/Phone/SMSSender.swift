import Foundation

/// A text message the server sends: a sign-in, confirmation or phone-change code.
public struct SMSMessage: Sendable, Equatable {
    /// How the message travels.
    public enum Channel: String, Sendable {
        case sms
        case whatsapp
    }

    /// The number in E.164 digits without the `+` (`15555550100`).
    public var to: String
    /// The text, with the code in it.
    public var body: String
    public var channel: Channel
    /// The code alone, for providers that send their own text (Twilio Verify).
    public var code: String

    public init(to: String, body: String, channel: Channel, code: String) {
        self.to = to
        self.body = body
        self.channel = channel
        self.code = code
    }
}

/// Delivers ``SMSMessage``s through an SMS provider.
public protocol SMSSender: Sendable {
    /// Sends `message`; returns the provider's id for it. A thrown error's description reaches
    /// the client in GoTrue's `sms_send_failed` answer, so it must never hold a credential.
    func send(_ message: SMSMessage) async throws -> String
}

/// An SMS provider that makes, sends and checks the codes itself (Twilio Verify): the server's
/// code is not what the user gets, so a code the user types is checked by the provider.
public protocol SMSCodeChecker: SMSSender {
    /// Whether `code` is the one the provider sent to `phone` (E.164 digits without `+`) and
    /// still valid; throws when the provider cannot be asked. Like ``SMSSender/send(_:)``'s, a
    /// thrown error must never hold a credential.
    func check(_ code: String, sentTo phone: String) async throws -> Bool
}

/// The sender of a server with no SMS provider: every message fails, so that only the test
/// numbers (`GOTRUE_SMS_TEST_OTP`) get codes.
struct NoSMSProvider: SMSSender {
    struct NotConfigured: Error, CustomStringConvertible {
        var description: String { "no SMS provider is configured" }
    }

    func send(_ message: SMSMessage) async throws -> String { throw NotConfigured() }
}

/// The sender of a server whose SMS provider cannot send (an unknown provider, or missing
/// credentials): every message fails with GoTrue's answer, 500 "Unable to get SMS provider"
/// (for a phone factor, "Failed to get SMS provider"); the server warned at start.
struct UnavailableSMSProvider: SMSSender {
    struct Unavailable: Error, CustomStringConvertible {
        /// GoTrue's reason, such as "missing Twilio account SID" (names a setting, never a value).
        var reason: String
        var description: String { reason }
    }

    var reason: String

    func send(_ message: SMSMessage) async throws -> String { throw Unavailable(reason: reason) }
}
