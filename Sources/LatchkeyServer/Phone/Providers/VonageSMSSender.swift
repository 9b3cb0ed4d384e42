import Foundation

/// Vonage (Nexmo) SMS: `POST {base}/sms/json`, a form with `from`, `to` (the number without
/// `+`), `text`, `api_key` and `api_secret` (and `type=unicode` for a text beyond ASCII), as
/// GoTrue sends it. A message's `status` other than `0` is a refusal. SMS only.
struct VonageSMSSender: SMSSender {
    static let apiBase = "https://rest.nexmo.com"

    let api: SMSProviderAPI
    let apiKey: String
    let apiSecret: String
    let from: String

    func send(_ message: SMSMessage) async throws -> String {
        try api.requireSMS(message)
        let url = try api.url("/sms/json", invalid: "the Vonage URL is not valid")
        var fields = [("from", from), ("to", message.to), ("text", message.body), ("api_key", apiKey), ("api_secret", apiSecret)]
        if !message.body.allSatisfy(\.isASCII) { fields.append(("type", "unicode")) }
        let answer: Answer = try await api.answer(to: .form(url, fields), unreadable: { "Vonage answered \($0) without a message" })
        let first = answer.first
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
        /// The answer's first message: an answer without one is not an answer.
        var first: Message

        enum CodingKeys: String, CodingKey {
            case messages
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            guard let first = try container.decode([Message].self, forKey: .messages).first else {
                throw DecodingError.dataCorruptedError(forKey: .messages, in: container, debugDescription: "no message")
            }
            self.first = first
        }
    }
}
