import Foundation

/// Phone sign-in over SMS, with GoTrue's settings (`GOTRUE_EXTERNAL_PHONE_ENABLED` and
/// `GOTRUE_SMS_*`).
public struct PhoneSettings: Sendable, Equatable {
    /// Whether phone numbers sign up and sign in (off: 400 `phone_provider_disabled`, as GoTrue).
    public var enabled = false
    /// Whether a phone sign-up is confirmed at once, without a code.
    public var autoconfirm = false
    /// Seconds a code sent by SMS stays usable (GoTrue's default: 60).
    public var codeTTL: TimeInterval = 60
    /// Digits in a code: 6 to 10.
    public var codeLength = 6
    /// Least seconds between two codes of one kind to one user.
    public var maximumFrequency: TimeInterval = 60
    /// The message; `{{ .Code }}` is replaced by the code. Empty: "Your code is {{ .Code }}".
    public var template: String?
    /// Fixed codes for test numbers, GoTrue's `GOTRUE_SMS_TEST_OTP`: `number:code` (or
    /// `number=code`) pairs separated by commas. A test number gets no SMS; its fixed code is
    /// redeemed like a sent one.
    public var testCodes: String?
    /// When the test numbers stop working (RFC 3339); `nil`: never.
    public var testCodesValidUntil: String?
    /// The SMS provider `latchkey serve` sends through (GoTrue's `GOTRUE_SMS_PROVIDER`): `twilio`,
    /// `twilio_verify`, `messagebird`, `vonage`, `textlocal`, or `nil` for none (only test numbers get codes). An app embedding the server may pass its
    /// own ``SMSSender`` instead.
    public var provider: String?
    /// Twilio's account SID (`AC…`).
    public var twilioAccountSID: String?
    /// Twilio's auth token (a secret: from the environment only in `latchkey serve`).
    public var twilioAuthToken: String?
    /// The messaging service SID (`MG…`) or the number messages come from.
    public var twilioMessageServiceSID: String?
    /// A WhatsApp content template (`HX…`) whose variable 1 is the code; `nil`: the text is sent.
    public var twilioContentSID: String?
    /// Twilio Verify's account SID (`AC…`).
    public var twilioVerifyAccountSID: String?
    /// Twilio Verify's auth token (a secret: from the environment only in `latchkey serve`).
    public var twilioVerifyAuthToken: String?
    /// The Twilio Verify service SID (`VA…`).
    public var twilioVerifyMessageServiceSID: String?
    /// MessageBird's access key (a secret: from the environment only in `latchkey serve`).
    public var messageBirdAccessKey: String?
    /// The sender MessageBird shows.
    public var messageBirdOriginator: String?
    /// Vonage's API key.
    public var vonageAPIKey: String?
    /// Vonage's API secret (from the environment only in `latchkey serve`).
    public var vonageAPISecret: String?
    /// The sender Vonage shows.
    public var vonageFrom: String?
    /// Textlocal's API key (from the environment only in `latchkey serve`).
    public var textlocalAPIKey: String?
    /// The sender Textlocal shows.
    public var textlocalSender: String?
    /// Where provider requests go instead of the provider's own host: for tests against a local
    /// fake, honoured only with ``ExternalProviderSettings/allowLoopbackProviders``.
    var providerURLOverride: String?

    public init() {}

    /// The message sent with `code`.
    func message(code: String) -> String {
        Self.message(template: template, code: code)
    }

    /// `template` with `{{ .Code }}` replaced by `code`; empty or `nil`: "Your code is {{ .Code }}".
    static func message(template: String?, code: String) -> String {
        ((template ?? "").isEmpty ? "Your code is {{ .Code }}" : template ?? "").replacingOccurrences(of: "{{ .Code }}", with: code)
    }

    /// The fixed codes by (normalised) number.
    func parsedTestCodes() throws(ConfigurationError) -> [String: String] {
        var codes: [String: String] = [:]
        for pair in (testCodes ?? "").split(separator: ",") {
            let parts = pair.split(maxSplits: 1, whereSeparator: { $0 == ":" || $0 == "=" })
            guard parts.count == 2, let phone = try? InputRules.normalizedPhone(String(parts[0]).trimmingCharacters(in: .whitespaces)) else {
                throw ServerSetting.smsTestOTP.error("needs number:code pairs separated by commas")
            }
            let code = parts[1].trimmingCharacters(in: .whitespaces)
            guard !code.isEmpty, code.allSatisfy(\.isASCII) else { throw ServerSetting.smsTestOTP.error("has an empty or non-ASCII code") }
            codes[phone] = code
        }
        return codes
    }

    /// ``testCodesValidUntil`` as a date.
    func parsedTestCodesValidUntil() throws(ConfigurationError) -> Date? {
        guard let text = testCodesValidUntil, !text.isEmpty else { return nil }
        guard let date = try? Date(text, strategy: .iso8601) else { throw ServerSetting.smsTestOTPValidUntil.error("needs an RFC 3339 time") }
        return date
    }

    func validate() throws(ConfigurationError) {
        typealias S = ServerSetting
        guard codeTTL >= 1 else { throw S.smsOTPExp.error("must be at least 1 second") }
        guard (6...10).contains(codeLength) else { throw S.smsOTPLength.error("must be between 6 and 10") }
        guard maximumFrequency >= 0 else { throw S.smsMaxFrequency.error("cannot be negative") }
        _ = try parsedTestCodes()
        _ = try parsedTestCodesValidUntil()
    }

    /// What keeps ``provider`` from sending, with the settings it needs, or `nil` when it can
    /// send (or none is named). GoTrue starts with an unknown provider or missing credentials
    /// and fails each send; so does Latchkey, after a warning at start.
    func providerProblem() -> (settings: [ServerSetting], reason: String)? {
        typealias S = ServerSetting
        let needed: [(ServerSetting, String?, String)]
        switch provider ?? "" {
        case "": return nil
        case "twilio":
            needed = [
                (S.smsTwilioAccountSID, twilioAccountSID, "missing Twilio account SID"),
                (S.smsTwilioAuthToken, twilioAuthToken, "missing Twilio auth token"),
                (S.smsTwilioMessageServiceSID, twilioMessageServiceSID, "missing Twilio message service SID or Twilio phone number"),
            ]
        case "twilio_verify":
            needed = [
                (S.smsTwilioVerifyAccountSID, twilioVerifyAccountSID, "missing Twilio account SID"),
                (S.smsTwilioVerifyAuthToken, twilioVerifyAuthToken, "missing Twilio auth token"),
                (S.smsTwilioVerifyMessageServiceSID, twilioVerifyMessageServiceSID, "missing Twilio message service SID or Twilio phone number"),
            ]
        case "messagebird":
            needed = [
                (S.smsMessageBirdAccessKey, messageBirdAccessKey, "missing Messagebird access key"),
                (S.smsMessageBirdOriginator, messageBirdOriginator, "missing Messagebird originator"),
            ]
        case "vonage":
            needed = [
                (S.smsVonageAPIKey, vonageAPIKey, "missing Vonage API key"), (S.smsVonageAPISecret, vonageAPISecret, "missing Vonage API secret"),
                (S.smsVonageFrom, vonageFrom, "missing Vonage 'from' parameter"),
            ]
        case "textlocal":
            needed = [
                (S.smsTextlocalAPIKey, textlocalAPIKey, "missing Textlocal API key"),
                (S.smsTextlocalSender, textlocalSender, "missing Textlocal sender"),
            ]
        default:
            return ([S.smsProvider], "sms Provider \(provider ?? "") could not be found (twilio, twilio_verify, messagebird, vonage or textlocal)")
        }
        let missing = needed.filter { ($0.1 ?? "").isEmpty }
        guard let first = missing.first else { return nil }
        return (missing.map { $0.0 }, first.2)
    }

    /// The sender ``provider`` names, over `http` (`allowsLoopback`: the tests' fake may stand
    /// in for the provider's host).
    func sender(http: any ProviderHTTP, allowsLoopback: Bool) -> any SMSSender {
        // The provider's API over `http`: its own base, or the tests' override when loopback
        // providers are allowed.
        func api(_ name: String, _ own: String) -> SMSProviderAPI {
            SMSProviderAPI(name: name, http: http, base: allowsLoopback ? providerURLOverride ?? own : own)
        }
        if let problem = providerProblem() { return UnavailableSMSProvider(reason: problem.reason) }
        return switch provider ?? "" {
        case "twilio":
            TwilioSMSSender(
                api: api("Twilio", TwilioSMSSender.apiBase), accountSID: twilioAccountSID ?? "", authToken: twilioAuthToken ?? "",
                messageServiceSID: twilioMessageServiceSID ?? "", contentSID: twilioContentSID)
        case "twilio_verify":
            TwilioVerifySMSSender(
                api: api("Twilio Verify", TwilioVerifySMSSender.apiBase), accountSID: twilioVerifyAccountSID ?? "",
                authToken: twilioVerifyAuthToken ?? "", serviceSID: twilioVerifyMessageServiceSID ?? "")
        case "messagebird":
            MessageBirdSMSSender(
                api: api("MessageBird", MessageBirdSMSSender.apiBase), accessKey: messageBirdAccessKey ?? "",
                originator: messageBirdOriginator ?? "")
        case "vonage":
            VonageSMSSender(
                api: api("Vonage", VonageSMSSender.apiBase), apiKey: vonageAPIKey ?? "", apiSecret: vonageAPISecret ?? "", from: vonageFrom ?? "")
        case "textlocal":
            TextlocalSMSSender(api: api("Textlocal", TextlocalSMSSender.apiBase), apiKey: textlocalAPIKey ?? "", sender: textlocalSender ?? "")
        default:
            NoSMSProvider()
        }
    }
}
