import Foundation

/// MessageBird: `POST {base}/messages`, a form with `originator`, `body`, `recipients` (the
/// number without `+`), `type=sms` and `datacoding=unicode`, authenticated with
/// `Authorization: AccessKey …`, as GoTrue sends it. SMS only.
struct MessageBirdSMSSender: SMSSender {
    static let apiBase = "https://rest.messagebird.com"

    let api: SMSProviderAPI
    let accessKey: String
    let originator: String

    func send(_ message: SMSMessage) async throws -> String {
        try api.requireSMS(message)
        let url = try api.url("/messages", invalid: "the MessageBird URL is not valid")
        let fields = [
            ("originator", originator), ("body", message.body), ("recipients", message.to), ("type", "sms"), ("datacoding", "unicode"),
        ]
        let answer: Answer = try await api.answer(
            to: .form(url, fields, headers: [("Authorization", "AccessKey " + accessKey)]), accepting: { (200..<300).contains($0) },
            refusal: Refusal.self, unreadable: { _ in "MessageBird's answer is not a message" })
        guard (answer.recipients?.totalSentCount ?? 0) > 0 else { throw ProviderFetchError("MessageBird sent message \(answer.id) to nobody") }
        return answer.id
    }

    private struct Answer: Decodable {
        struct Recipients: Decodable { var totalSentCount: Int? }
        var id: String
        var recipients: Recipients?
    }

    private struct Refusal: SMSProviderRefusal {
        struct Failure: Decodable { var description: String? }
        var errors: [Failure]?

        var reason: String? { errors?.first?.description }
    }
}
