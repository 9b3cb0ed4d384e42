import Foundation
import LatchkeyServer

/// An ``SMSSender`` that keeps what it is given, and can be told to fail.
final class RecordingSMSSender: SMSSender, @unchecked Sendable {
    struct Refused: Error, CustomStringConvertible {
        var description: String { "the provider refused the message" }
    }

    private let lock = NSLock()
    private var messages: [SMSMessage] = []
    private var failing = false

    func send(_ message: SMSMessage) async throws -> String {
        try lock.withLock {
            if failing { throw Refused() }
            messages.append(message)
            return "SM\(messages.count)"
        }
    }

    /// Every message sent, oldest first.
    var sent: [SMSMessage] { lock.withLock { messages } }

    /// The code of the newest message to `phone` (E.164 digits without `+`).
    func code(to phone: String) throws -> String {
        guard let message = sent.last(where: { $0.to == phone }) else { throw TestFailure("no SMS to \(phone)") }
        return message.code
    }

    func fail(_ value: Bool) { lock.withLock { failing = value } }
}
