import Foundation
import Hummingbird
import LatchkeyTesting
import NIOConcurrencyHelpers
import Testing

@testable import LatchkeyServer

/// A local stand-in for Twilio Verify's API, as Twilio documents it: `Verifications` makes a
/// code for `To` and "sends" it (kept here for the test to read), `VerificationCheck` answers
/// `approved` and `valid: true` once for the pending code of `To`, `pending` and `valid: false`
/// otherwise; 401 with an error body for a wrong account or token.
final class FakeTwilioVerify: Sendable {
    struct Received: Sendable {
        var path: String
        var authorization: String?
        var form: [String: String]
    }

    let baseURL: String
    private let received: NIOLockedValueBox<[Received]>
    private let pending: NIOLockedValueBox<[String: String]>
    private let server: LoopbackHTTPServer

    private init(baseURL: String, received: NIOLockedValueBox<[Received]>, pending: NIOLockedValueBox<[String: String]>, server: LoopbackHTTPServer) {
        self.baseURL = baseURL
        self.received = received
        self.pending = pending
        self.server = server
    }

    var requests: [Received] { received.withLockedValue { $0 } }
    /// The code Twilio sent to `to` (`+` and digits) and has not approved yet.
    func code(to: String) throws -> String {
        guard let code = pending.withLockedValue({ $0[to] }) else { throw TestFailure("Twilio Verify sent nothing to \(to)") }
        return code
    }
    /// Makes Twilio hold a code for `to` that the server under test never asked for (another
    /// system using the same Verify service).
    func issue(_ code: String, to: String) { pending.withLockedValue { $0[to] = code } }
    func stop() async { try? await server.stop() }

    static func start(accountSID: String, authToken: String) async throws -> FakeTwilioVerify {
        let received = NIOLockedValueBox<[Received]>([])
        let pending = NIOLockedValueBox<[String: String]>([:])
        let expected = "Basic " + Data("\(accountSID):\(authToken)".utf8).base64EncodedString()
        let router = Router()
        @Sendable func json(_ status: HTTPResponse.Status, _ text: String) -> Response {
            Response(status: status, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: text)))
        }
        @Sendable func form(_ request: Request) async throws -> [String: String] {
            let text = String(buffer: try await request.body.collect(upTo: 1 << 16))
            let form = formFields(text)
            received.withLockedValue { $0.append(Received(path: request.uri.path, authorization: request.headers[.authorization], form: form)) }
            return form
        }
        let unauthorized = #"{"code": 20003, "message": "Authenticate", "status": 401}"#
        router.post("/v2/Services/:service/Verifications") { request, _ -> Response in
            let fields = try await form(request)
            guard request.headers[.authorization] == expected else { return json(.unauthorized, unauthorized) }
            let to = fields["To"] ?? ""
            let code = String(format: "%06d", Int.random(in: 0..<1_000_000))
            pending.withLockedValue { $0[to] = code }
            return json(.created, #"{"sid": "VE0123456789abcdef0123456789abcdef", "status": "pending", "valid": false, "to": "\#(to)"}"#)
        }
        router.post("/v2/Services/:service/VerificationCheck") { request, _ -> Response in
            let fields = try await form(request)
            guard request.headers[.authorization] == expected else { return json(.unauthorized, unauthorized) }
            let to = fields["To"] ?? ""
            let approved = pending.withLockedValue { codes -> Bool in
                guard let code = codes[to], code == fields["Code"] else { return false }
                codes[to] = nil
                return true
            }
            return json(
                .ok, #"{"sid": "VE0123456789abcdef0123456789abcdef", "status": "\#(approved ? "approved" : "pending")", "valid": \#(approved)}"#)
        }
        let server = try await LoopbackHTTPServer.start(router, label: "fake-twilio-verify")
        return FakeTwilioVerify(baseURL: server.baseURL, received: received, pending: pending, server: server)
    }
}

/// `GOTRUE_SMS_PROVIDER=twilio_verify`: Twilio makes and checks the codes, for phone sign-in and
/// phone factors alike, as GoTrue does; test numbers keep their fixed codes.
@Suite("Twilio Verify SMS")
struct TwilioVerifySMSSenderTests {
    static let accountSID = "AC00000000000000000000000000000003"
    static let authToken = "twilio-verify-token-secret"
    static let serviceSID = "VA00000000000000000000000000000004"

    static func withServer(
        token: String = authToken, configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestServer, FakeTwilioVerify) async throws -> Void
    ) async throws {
        let fake = try await FakeTwilioVerify.start(accountSID: accountSID, authToken: authToken)
        defer { Task { await fake.stop() } }
        let base = fake.baseURL
        try await TestServer.with(configure: { configuration in
            configuration.phone.enabled = true
            configuration.phone.provider = "twilio_verify"
            configuration.phone.twilioVerifyAccountSID = accountSID
            configuration.phone.twilioVerifyAuthToken = token
            configuration.phone.twilioVerifyMessageServiceSID = serviceSID
            configuration.phone.providerURLOverride = base
            configuration.external.allowLoopbackProviders = true
            configure(&configuration)
        }) { server in try await body(server, fake) }
    }

    @Test("sign-in: Twilio Verify sends the code and checks it; a wrong code is 403 otp_expired; a code works once")
    func signIn() async throws {
        try await Self.withServer { server, fake in
            #expect(try await server.request(.POST, "/otp", json: ["phone": "+1 555 555 0123"]).status == 200)
            let sent = try #require(fake.requests.last)
            #expect(sent.path == "/v2/Services/\(Self.serviceSID)/Verifications")
            #expect(sent.authorization == "Basic " + Data("\(Self.accountSID):\(Self.authToken)".utf8).base64EncodedString())
            #expect(sent.form == ["To": "+15555550123", "Channel": "sms"], "Verify makes its own text")
            let code = try fake.code(to: "+15555550123")

            let wrong = try await server.request(
                .POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": code == "000000" ? "111111" : "000000"])
            #expect(wrong.status == 403 && wrong.errorCode == "otp_expired")
            let check = try #require(fake.requests.last)
            #expect(check.path == "/v2/Services/\(Self.serviceSID)/VerificationCheck")
            #expect(check.form["To"] == "+15555550123")

            let verified = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": code])
            #expect(verified.status == 200, "\(verified.text)")
            #expect((verified["user"] as? [String: Any])?["phone_confirmed_at"] is String)
            let again = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": code])
            #expect(again.status == 403 && again.errorCode == "otp_expired")
        }
    }

    @Test("a code Twilio approves for a number nobody asked a code for here signs nobody in; guesses are limited per number")
    func approvalAloneIsNotEnough() async throws {
        try await Self.withServer { server, fake in
            // A number with an account and no code asked for here: Twilio's approval alone signs nobody in.
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123"]).status == 200)
            let code = try fake.code(to: "+15555550123")
            #expect(try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": code]).status == 200)
            fake.issue("424242", to: "+15555550123")
            let unasked = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": "424242"])
            #expect(unasked.status == 403 && unasked.errorCode == "otp_expired")
            #expect(throws: TestFailure.self) { try fake.code(to: "+15555550123") }  // Twilio did approve it
            server.clock.advance(by: 61)
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123"]).status == 200)
            let next = try fake.code(to: "+15555550123")
            let wrong = next == "000000" ? "111111" : "000000"
            for _ in 0..<9 {  // with the unasked code above, ten wrong codes
                #expect(try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": wrong]).status == 403)
            }
            let checks = fake.requests.filter { $0.path.hasSuffix("/VerificationCheck") }.count
            let locked = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": next])
            #expect(locked.status == 429, "the number is locked after ten wrong codes: \(locked.text)")
            #expect(fake.requests.filter { $0.path.hasSuffix("/VerificationCheck") }.count == checks, "a locked number does not reach Twilio")
        }
    }

    @Test("a code Twilio still approves is refused once the server's code lifetime has passed")
    func serverExpiryHolds() async throws {
        try await Self.withServer { server, fake in
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123"]).status == 200)
            let code = try fake.code(to: "+15555550123")
            server.clock.advance(by: PhoneSettings().codeTTL + 1)
            let late = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": code])
            #expect(late.status == 403 && late.errorCode == "otp_expired", "\(late.text)")
            #expect(fake.requests.contains { $0.path.hasSuffix("/VerificationCheck") }, "Twilio approved it")
        }
    }

    @Test("test numbers keep their fixed codes and never reach Twilio")
    func testNumbers() async throws {
        try await Self.withServer(configure: { $0.phone.testCodes = "15555550100:123456" }) { server, fake in
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550100"]).status == 200)
            let verified = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550100", "token": "123456"])
            #expect(verified.status == 200, "\(verified.text)")
            #expect(fake.requests.isEmpty)
        }
    }

    @Test("Twilio's refusal is 422 sms_send_failed with its message and never the auth token")
    func refusal() async throws {
        try await Self.withServer(token: "not-the-token") { server, _ in
            let failed = try await server.request(.POST, "/otp", json: ["phone": "15555550123"])
            #expect(failed.status == 422 && failed.errorCode == "sms_send_failed", "\(failed.text)")
            #expect((failed["msg"] as? String)?.contains("Authenticate") == true)
            #expect(!failed.text.contains("not-the-token"))
        }
    }

    @Test("phone factors: Twilio Verify sends the challenge's code and checks it; wrong is 403 otp_expired; right is aal2")
    func phoneFactor() async throws {
        try await Self.withServer(configure: {
            $0.phone.enabled = false
            $0.mfa.phoneEnrollEnabled = true
            $0.mfa.phoneVerifyEnabled = true
            MFATests.roomy(&$0)
        }) { server, fake in
            let session = try await server.signUp("verify-factor@example.com")
            let enrolled = try await server.request(
                .POST, "/factors", json: ["factor_type": "phone", "phone": "+15555550177"], bearer: session.accessToken)
            let factorID = try #require(enrolled["id"] as? String)
            let challenge = try await server.request(.POST, "/factors/\(factorID)/challenge", json: [:], bearer: session.accessToken)
            let challengeID = try #require(challenge["id"] as? String, "\(challenge.text)")
            #expect(fake.requests.last?.form == ["To": "+15555550177", "Channel": "sms"])
            let code = try fake.code(to: "+15555550177")

            let wrong = try await MFATests.verify(
                server, session.accessToken, factorID, challenge: challengeID, code: code == "000000" ? "111111" : "000000")
            #expect(wrong.status == 403 && wrong.errorCode == "otp_expired")
            let elsewhere = try await MFATests.verify(
                server, session.accessToken, factorID, challenge: UUID().uuidString, code: code)
            #expect(elsewhere.status == 422 && elsewhere.errorCode == "mfa_factor_not_found", "the challenge is checked before Twilio is asked")
            let verified = try await MFATests.verify(server, session.accessToken, factorID, challenge: challengeID, code: code)
            #expect(verified.status == 200, "\(verified.text)")
            let raised = try #require(TestSession(verified))
            #expect(try MFATests.methods(raised.accessToken).contains("mfa/phone"))
        }
    }

    @Test("the provider needs its account SID, auth token and service SID (without one it cannot send, as GoTrue's)")
    func settings() throws {
        var settings = PhoneSettings()
        settings.provider = "twilio_verify"
        settings.twilioVerifyAccountSID = Self.accountSID
        settings.twilioVerifyMessageServiceSID = Self.serviceSID
        try settings.validate()
        #expect(settings.providerProblem()?.reason == "missing Twilio auth token")
        #expect(settings.providerProblem()?.settings.map(\.id) == [ServerSetting.smsTwilioVerifyAuthToken.id])
        settings.twilioVerifyAuthToken = Self.authToken
        #expect(settings.providerProblem() == nil)
    }
}
