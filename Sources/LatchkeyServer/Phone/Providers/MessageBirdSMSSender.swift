import Foundation

/// MessageBird: `POST {base}/messages`, a form with `originator`, `body`, `recipients` (the
/// number without `+`), `type=sms` and `datacoding=unicode`, authenticated with
/// `Authorization: AccessKey …`, as GoTrue sends it. SMS only.
struct MessageBirdSMSSender: SMSSender {
    static let apiBase = "https://rest.messagebird.com"

    let http: any ProviderHTTP
    let accessKey: String
    let originator: String
    let apiBase: String

    func send(_ message: SMSMessage) async throws -> String {
        guard message.channel == .sms else { throw ProviderFetchError("MessageBird sends SMS only") }
        guard let url = URL(string: "\(apiBase)/messages") else { throw ProviderFetchError("the MessageBird URL is not valid") }
        let fields = [
            ("originator", originator), ("body", message.body), ("recipients", message.to), ("type", "sms"), ("datacoding", "unicode"),
        ]
        let response = try await http.send(.form(url, fields, headers: [("Authorization", "AccessKey " + accessKey)]))
        guard (200..<300).contains(response.status) else {
            let refusal = try? JSONDecoder().decode(Refusal.self, from: response.body)
            throw ProviderFetchError("MessageBird answered \(response.status): \(refusal?.errors?.first?.description ?? "no error message")")
        }
        guard let answer = try? JSONDecoder().decode(Answer.self, from: response.body), let id = answer.id else {
            throw ProviderFetchError("MessageBird's answer is not a message")
        }
        guard (answer.recipients?.totalSentCount ?? 0) > 0 else { throw ProviderFetchError("MessageBird sent message \(id) to nobody") }
        return id
    }

    private struct Answer: Decodable {
        struct Recipients: Decodable { var totalSentCount: Int? }
        var id: String?
        var recipients: Recipients?
    }

    private struct Refusal: Decodable {
        struct Failure: Decodable { var description: String? }
        var errors: [Failure]?
    }
}
