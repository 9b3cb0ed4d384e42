import Foundation

/// Textlocal: `POST {base}/send`, a form with `sender`, `apikey`, `message` and `numbers` (the
/// number without `+`), as GoTrue sends it. An answer whose `status` is not `success` is a
/// refusal. SMS only.
struct TextlocalSMSSender: SMSSender {
    static let apiBase = "https://api.textlocal.in"

    let api: SMSProviderAPI
    let apiKey: String
    let sender: String

    func send(_ message: SMSMessage) async throws -> String {
        try api.requireSMS(message)
        let url = try api.url("/send", invalid: "the Textlocal URL is not valid")
        let answer: Answer = try await api.answer(
            to: .form(url, [("sender", sender), ("apikey", apiKey), ("message", message.body), ("numbers", message.to)]),
            unreadable: { "Textlocal answered \($0) with no status" })
        guard answer.status == "success" else {
            let failure = answer.errors?.first
            throw ProviderFetchError("Textlocal refused the message: \(failure?.message ?? "no error message") (code \(failure?.code ?? 0))")
        }
        return answer.messages?.first?.id.map { "\($0)" } ?? ""
    }

    private struct Answer: Decodable {
        struct Failure: Decodable {
            var code: Int?
            var message: String?
        }
        struct Message: Decodable { var id: FlexibleID? }
        var status: String?
        var errors: [Failure]?
        var messages: [Message]?
    }

    /// Textlocal's message id: a number or a string.
    private struct FlexibleID: Decodable, CustomStringConvertible {
        var description: String
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let text = try? container.decode(String.self) {
                description = text
            } else {
                description = String(try container.decode(Int.self))
            }
        }
    }
}
