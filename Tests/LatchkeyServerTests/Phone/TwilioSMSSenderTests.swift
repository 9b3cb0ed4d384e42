import Foundation
import Hummingbird
import LatchkeyTesting
import NIOConcurrencyHelpers
import Testing

@testable import LatchkeyServer

/// A local stand-in for Twilio's Messages API: it records each request and answers as Twilio
/// does (201 and the message resource; 400 and an error body when told to fail).
final class FakeTwilio: Sendable {
    struct Received: Sendable {
        var path: String
        var authorization: String?
        var contentType: String?
        var form: [String: String]
    }

    let baseURL: String
    private let received: NIOLockedValueBox<[Received]>
    private let failing: NIOLockedValueBox<Bool>
    private let server: LoopbackHTTPServer

    private init(baseURL: String, received: NIOLockedValueBox<[Received]>, failing: NIOLockedValueBox<Bool>, server: LoopbackHTTPServer) {
        self.baseURL = baseURL
        self.received = received
        self.failing = failing
        self.server = server
    }

    var requests: [Received] { received.withLockedValue { $0 } }
    func setFailing(_ on: Bool) { failing.withLockedValue { $0 = on } }
    func stop() async { try? await server.stop() }

    static func start() async throws -> FakeTwilio {
        let received = NIOLockedValueBox<[Received]>([])
        let failing = NIOLockedValueBox(false)
        let router = Router()
        router.post("/2010-04-01/Accounts/:sid/Messages.json") { request, _ -> Response in
            let text = String(buffer: try await request.body.collect(upTo: 1 << 16))
            let form = formFields(text)
            received.withLockedValue {
                $0.append(
                    Received(
                        path: request.uri.path, authorization: request.headers[.authorization], contentType: request.headers[.contentType], form: form
                    ))
            }
            if failing.withLockedValue({ $0 }) {
                let body =
                    #"{"code": 21211, "message": "The 'To' number is not a valid phone number.", "more_info": "https://www.twilio.com/docs/errors/21211", "status": 400}"#
                return Response(status: .badRequest, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
            }
            let body = #"{"sid": "SM0123456789abcdef0123456789abcdef", "status": "queued", "to": "\#(form["To"] ?? "")"}"#
            return Response(status: .created, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
        }
        let server = try await LoopbackHTTPServer.start(router, label: "fake-twilio")
        return FakeTwilio(baseURL: server.baseURL, received: received, failing: failing, server: server)
    }
}

/// `GOTRUE_SMS_PROVIDER=twilio`: codes go out through Twilio's Messages API, in the request
/// Twilio documents, and a refusal is GoTrue's `sms_send_failed` with Twilio's message.
@Suite("Twilio SMS")
struct TwilioSMSSenderTests {
    static let accountSID = "AC00000000000000000000000000000001"
    static let authToken = "twilio-auth-token-secret"

    static func twilio(_ fake: FakeTwilio) -> @Sendable (inout ServerConfiguration) -> Void {
        let base = fake.baseURL
        return { configuration in
            configuration.phone.enabled = true
            configuration.phone.provider = "twilio"
            configuration.phone.twilioAccountSID = accountSID
            configuration.phone.twilioAuthToken = authToken
            configuration.phone.twilioMessageServiceSID = "MG00000000000000000000000000000002"
            configuration.phone.providerURLOverride = base
            configuration.external.allowLoopbackProviders = true
        }
    }

    @Test("a code goes to Twilio as a form post with basic auth, To with +, From, Body and Channel, and signs in")
    func sendsAndSignsIn() async throws {
        let fake = try await FakeTwilio.start()
        defer { Task { await fake.stop() } }
        try await TestServer.with(configure: Self.twilio(fake)) { server in
            #expect(try await server.request(.POST, "/otp", json: ["phone": "+1 555 555 0123"]).status == 200)
            let request = try #require(fake.requests.last)
            #expect(request.path == "/2010-04-01/Accounts/\(Self.accountSID)/Messages.json")
            #expect(request.authorization == "Basic " + Data("\(Self.accountSID):\(Self.authToken)".utf8).base64EncodedString())
            #expect(request.contentType == "application/x-www-form-urlencoded")
            #expect(request.form["To"] == "+15555550123")
            #expect(request.form["From"] == "MG00000000000000000000000000000002")
            #expect(request.form["Channel"] == "sms")
            let body = try #require(request.form["Body"])
            #expect(body.hasPrefix("Your code is "))
            let code = String(body.dropFirst("Your code is ".count))
            #expect(code.count == 6)
            let verified = try await server.request(.POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": code])
            #expect(verified.status == 200, "\(verified.text)")
        }
    }

    @Test("WhatsApp goes to whatsapp:+number")
    func whatsapp() async throws {
        let fake = try await FakeTwilio.start()
        defer { Task { await fake.stop() } }
        try await TestServer.with(configure: Self.twilio(fake)) { server in
            #expect(try await server.request(.POST, "/otp", json: ["phone": "15555550123", "channel": "whatsapp"]).status == 200)
            let request = try #require(fake.requests.last)
            #expect(request.form["To"] == "whatsapp:+15555550123")
            #expect(request.form["Channel"] == "whatsapp")
            #expect(request.form["From"] == "MG00000000000000000000000000000002", "a messaging service SID is not a number")
            #expect(request.form["Body"]?.hasPrefix("Your code is ") == true)
        }
    }

    @Test("Twilio's refusal is 422 sms_send_failed with its message and never the auth token")
    func refusal() async throws {
        let fake = try await FakeTwilio.start()
        defer { Task { await fake.stop() } }
        fake.setFailing(true)
        try await TestServer.with(configure: Self.twilio(fake)) { server in
            let failed = try await server.request(.POST, "/otp", json: ["phone": "15555550123"])
            #expect(failed.status == 422)
            #expect(failed.errorCode == "sms_send_failed")
            #expect((failed["msg"] as? String)?.contains("The 'To' number is not a valid phone number.") == true, "\(failed.text)")
            #expect(!failed.text.contains(Self.authToken))
        }
    }
}
