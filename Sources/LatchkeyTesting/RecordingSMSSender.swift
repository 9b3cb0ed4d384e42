import Foundation
import LatchkeyServer

/// An `SMSSender` that keeps the messages it is given instead of sending them, and can be told
/// to fail: the codes a test reads back from a server started with it.
package final class RecordingSMSSender: SMSSender, @unchecked Sendable {
    /// The error a failing sender throws, as a provider's refusal.
    package struct Refused: Error, CustomStringConvertible {
        package var description: String { "the provider refused the message" }
    }

    /// No message went to the number asked about.
    package struct NoMessage: Error, CustomStringConvertible {
        package let phone: String
        package var description: String { "no SMS to \(phone)" }
    }

    private let lock = NSLock()
    private var messages: [SMSMessage] = []
    private var failing = false

    package init() {}

    package func send(_ message: SMSMessage) async throws -> String {
        try lock.withLock {
            if failing { throw Refused() }
            messages.append(message)
            return "SM\(messages.count)"
        }
    }

    /// Every message sent, oldest first.
    package var sent: [SMSMessage] { lock.withLock { messages } }

    /// The code of the newest message to `phone` (E.164 digits without `+`).
    package func code(to phone: String) throws -> String {
        guard let message = sent.last(where: { $0.to == phone }) else { throw NoMessage(phone: phone) }
        return message.code
    }

    /// Makes every later message fail (`true`) or be kept again (`false`).
    package func fail(_ value: Bool) { lock.withLock { failing = value } }
}
