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

    let http: any ProviderHTTP
    let accountSID: String
    let authToken: String
    let serviceSID: String
    let apiBase: String

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
        guard let url = URL(string: "\(apiBase)/v2/Services/\(ProviderRequest.formEncoded(serviceSID))/\(resource)") else {
            throw ProviderFetchError("the Twilio Verify service SID makes no URL")
        }
        let response = try await http.send(.form(url, fields, basicAuthentication: accountSID, secret: authToken))
        guard response.status == 200 || response.status == 201 else {
            let error = try? JSONDecoder().decode(ErrorAnswer.self, from: response.body)
            throw ProviderFetchError("Twilio Verify answered \(response.status): \(error?.message ?? "no error message")")
        }
        guard let answer = try? JSONDecoder().decode(Verification.self, from: response.body) else {
            throw ProviderFetchError("Twilio Verify's answer to \(what) is not JSON")
        }
        return answer
    }

    /// The parts of Twilio's verification and verification check resources read here.
    private struct Verification: Decodable {
        var sid: String?
        var status: String?
        var valid: Bool?
    }

    /// Twilio's error body.
    private struct ErrorAnswer: Decodable {
        var message: String?
    }
}
