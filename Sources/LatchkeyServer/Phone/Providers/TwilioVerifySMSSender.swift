import Foundation

/// Twilio Verify: Twilio makes, sends and checks the code itself, as GoTrue's
/// `twilio_verify` provider.
///
/// Sending is `POST {base}/v2/Services/{service SID}/Verifications`, a form with `To` (`+` and the
/// number; no `whatsapp:` prefix, Verify takes the channel) and `Channel`; checking is
/// `POST {base}/v2/Services/{service SID}/VerificationCheck` with `To` and `Code`, approved when
/// Twilio answers `status: approved` and `valid: true`. Both with HTTP Basic (account SID, auth
/// token). The server's own code and message text are not used.
struct TwilioVerifySMSSender: SMSCodeChecker {
    /// Twilio Verify's API; tests reach a local fake through ``PhoneSettings/providerURLOverride``.
    static let apiBase = "https://verify.twilio.com"

    let api: SMSProviderAPI
    let accountSID: String
    let authToken: String
    let serviceSID: String

    func send(_ message: SMSMessage) async throws -> String {
        let answer: Verification = try await post(
            "Verifications", [("To", "+" + message.to), ("Channel", message.channel.rawValue)], what: "the verification")
        guard let sid = answer.sid else { throw ProviderFetchError("Twilio Verify's answer is not a verification") }
        return sid
    }

    func check(_ code: String, sentTo phone: String) async throws -> Bool {
        let answer: Verification = try await post("VerificationCheck", [("To", "+" + phone), ("Code", code)], what: "the check")
        return answer.status == "approved" && answer.valid == true
    }

    private func post(_ resource: String, _ fields: [(String, String)], what: String) async throws -> Verification {
        let url = try api.url(
            "/v2/Services/\(ProviderRequest.formEncoded(serviceSID))/\(resource)", invalid: "the Twilio Verify service SID makes no URL")
        return try await api.answer(
            to: .form(url, fields, basicAuthentication: accountSID, secret: authToken), accepting: { $0 == 200 || $0 == 201 },
            refusal: TwilioRefusal.self, unreadable: { _ in "Twilio Verify's answer to \(what) is not JSON" })
    }

    /// The parts of Twilio's verification and verification check resources read here.
    private struct Verification: Decodable {
        var sid: String?
        var status: String?
        var valid: Bool?
    }
}
