import Foundation

/// An SMS provider's HTTP API as every sender calls it: a form posted to a URL under the API
/// base (the provider's own, or the tests' override), its JSON answer decoded, and errors that
/// name the provider and never carry a credential or the message.
struct SMSProviderAPI: Sendable {
    /// The provider as errors name it ("Twilio Verify").
    let name: String
    let http: any ProviderHTTP
    /// The API base, without a trailing slash.
    let base: String

    /// Refuses `message` unless it goes by SMS, for providers that send nothing else.
    func requireSMS(_ message: SMSMessage) throws {
        guard message.channel == .sms else { throw ProviderFetchError("\(name) sends SMS only") }
    }

    /// `path` under the API base; `invalid` is the error when it makes no URL.
    func url(_ path: String, invalid: String) throws -> URL {
        guard let url = URL(string: base + path) else { throw ProviderFetchError(invalid) }
        return url
    }

    /// Sends `request` and decodes its answer whatever the status, for providers that say in
    /// the body whether they sent; `unreadable` is the error, given the status, for a body that
    /// is not an `Answer`.
    func answer<Answer: Decodable>(to request: ProviderRequest, unreadable: (Int) -> String) async throws -> Answer {
        let response = try await http.send(request)
        return try Self.decode(response, unreadable)
    }

    /// Sends `request` and decodes its answer; a status other than `accepted` is the error
    /// "<name> answered <status>: <reason>", with the reason the provider's error body gives.
    func answer<Answer: Decodable, Refusal: SMSProviderRefusal>(
        to request: ProviderRequest, accepting accepted: (Int) -> Bool, refusal: Refusal.Type, unreadable: (Int) -> String
    ) async throws -> Answer {
        let response = try await http.send(request)
        guard accepted(response.status) else {
            let reason = (try? JSONDecoder().decode(Refusal.self, from: response.body))?.reason
            throw ProviderFetchError("\(name) answered \(response.status): \(reason ?? "no error message")")
        }
        return try Self.decode(response, unreadable)
    }

    private static func decode<Answer: Decodable>(_ response: ProviderResponse, _ unreadable: (Int) -> String) throws -> Answer {
        guard let answer = try? JSONDecoder().decode(Answer.self, from: response.body) else {
            throw ProviderFetchError(unreadable(response.status))
        }
        return answer
    }
}

/// A provider's error body: what it says went wrong.
protocol SMSProviderRefusal: Decodable {
    var reason: String? { get }
}

/// Twilio's error body (Programmable Messaging and Verify alike).
struct TwilioRefusal: SMSProviderRefusal {
    var message: String?

    var reason: String? { message }
}
