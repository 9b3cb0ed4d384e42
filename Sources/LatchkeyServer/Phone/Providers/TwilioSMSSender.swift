import Foundation

/// Twilio Programmable Messaging: `POST {base}/2010-04-01/Accounts/{sid}/Messages.json`, a form
/// with `To` (`+` and the number), `From` (the messaging service or number), `Body` and
/// `Channel`, authenticated with HTTP Basic (account SID, auth token), as GoTrue sends it.
///
/// For WhatsApp `To` is `whatsapp:+…` (and a `From` that is a number `whatsapp:` too); with a
/// content SID the code goes as the template's variable 1 instead of a body.
struct TwilioSMSSender: SMSSender {
    /// Twilio's API; tests reach a local fake through ``PhoneSettings/providerURLOverride``.
    static let apiBase = "https://api.twilio.com"

    let api: SMSProviderAPI
    let accountSID: String
    let authToken: String
    let messageServiceSID: String
    let contentSID: String?

    func send(_ message: SMSMessage) async throws -> String {
        let url = try api.url(
            "/2010-04-01/Accounts/\(ProviderRequest.formEncoded(accountSID))/Messages.json", invalid: "the Twilio account SID makes no URL")
        var to = "+" + message.to
        var from = messageServiceSID
        var fields: [(String, String)]
        switch message.channel {
        case .sms:
            fields = [("To", to), ("Channel", "sms"), ("From", from), ("Body", message.body)]
        case .whatsapp:
            to = "whatsapp:" + to
            if (try? InputRules.normalizedPhone(from)) != nil { from = "whatsapp:" + from }
            fields = [("To", to), ("Channel", "whatsapp"), ("From", from)]
            if let contentSID, !contentSID.isEmpty {
                let variables = String(decoding: try JSONEncoder().encode(["1": message.code]), as: UTF8.self)
                fields += [("ContentSid", contentSID), ("ContentVariables", variables)]
            } else {
                fields.append(("Body", message.body))
            }
        }
        let status: MessageStatus = try await api.answer(
            to: .form(url, fields, basicAuthentication: accountSID, secret: authToken), accepting: { $0 == 200 || $0 == 201 },
            refusal: TwilioRefusal.self, unreadable: { _ in "Twilio's answer is not a message" })
        if status.status == "failed" || status.status == "undelivered" {
            throw ProviderFetchError("Twilio could not deliver message \(status.sid): \(status.error_message ?? "no error message")")
        }
        return status.sid
    }

    /// The parts of Twilio's message resource read here.
    private struct MessageStatus: Decodable {
        var sid: String
        var status: String?
        var error_message: String?
    }
}
