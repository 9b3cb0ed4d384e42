import Foundation

/// Vonage (Nexmo) SMS: `POST {base}/sms/json`, a form with `from`, `to` (the number without
/// `+`), `text`, `api_key` and `api_secret` (and `type=unicode` for a text beyond ASCII), as
/// GoTrue sends it. A message's `status` other than `0` is a refusal. SMS only.
struct VonageSMSSender: SMSSender {
    static let apiBase = "https://rest.nexmo.com"

    let http: any ProviderHTTP
    let apiKey: String
    let apiSecret: String
    let from: String
    let apiBase: String

    func send(_ message: SMSMessage) async throws -> String {
        guard message.channel == .sms else { throw ProviderFetchError("Vonage sends SMS only") }
        guard let url = URL(string: "\(apiBase)/sms/json") else { throw ProviderFetchError("the Vonage URL is not valid") }
        var fields = [("from", from), ("to", message.to), ("text", message.body), ("api_key", apiKey), ("api_secret", apiSecret)]
        if !message.body.allSatisfy(\.isASCII) { fields.append(("type", "unicode")) }
        let response = try await http.send(.form(url, fields))
        guard let answer = try? JSONDecoder().decode(Answer.self, from: response.body), let first = answer.messages?.first else {
            throw ProviderFetchError("Vonage answered \(response.status) without a message")
        }
        guard first.status == "0" else {
            throw ProviderFetchError("Vonage refused the message (status \(first.status ?? "?")): \(first.errorText ?? "no error message")")
        }
        return first.messageID ?? ""
    }

    private struct Answer: Decodable {
        struct Message: Decodable {
            var messageID: String?
            var status: String?
            var errorText: String?

            enum CodingKeys: String, CodingKey {
                case messageID = "message-id"
                case status
                case errorText = "error-text"
            }
        }
        var messages: [Message]?
    }
}
