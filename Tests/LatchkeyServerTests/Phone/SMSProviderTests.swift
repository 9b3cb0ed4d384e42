import Foundation
import Hummingbird
import LatchkeyTesting
import NIOConcurrencyHelpers
import Testing

@testable import LatchkeyServer

/// A local stand-in for MessageBird, Vonage and Textlocal: it records each form post and
/// answers what the provider documents, a success or a refusal.
final class FakeSMSProvider: Sendable {
    struct Received: Sendable {
        var path: String
        var authorization: String?
        var contentType: String?
        var form: [String: String]
    }

    let baseURL: String
    private let received: NIOLockedValueBox<[Received]>
    private let refusing: NIOLockedValueBox<Bool>
    private let server: LoopbackHTTPServer

    private init(baseURL: String, received: NIOLockedValueBox<[Received]>, refusing: NIOLockedValueBox<Bool>, server: LoopbackHTTPServer) {
        self.baseURL = baseURL
        self.received = received
        self.refusing = refusing
        self.server = server
    }

    var requests: [Received] { received.withLockedValue { $0 } }
    func setRefusing(_ on: Bool) { refusing.withLockedValue { $0 = on } }
    func stop() async { try? await server.stop() }

    /// Each provider's path, and its answers: (success, refusal) as status and JSON.
    static let answers: [String: (ok: (Int, String), refused: (Int, String))] = [
        "/messages": (
            (201, #"{"id": "mb-1", "recipients": {"totalCount": 1, "totalSentCount": 1}}"#),
            (422, #"{"errors": [{"code": 9, "description": "no (correct) recipients found", "parameter": "recipient"}]}"#)
        ),
        "/sms/json": (
            (200, #"{"message-count": "1", "messages": [{"to": "15555550123", "message-id": "vn-1", "status": "0"}]}"#),
            (200, #"{"message-count": "1", "messages": [{"status": "4", "error-text": "Bad Credentials"}]}"#)
        ),
        "/send": (
            (200, #"{"status": "success", "messages": [{"id": 1234, "recipient": 15555550123}]}"#),
            (200, #"{"status": "failure", "errors": [{"code": 4, "message": "No recipients specified"}]}"#)
        ),
    ]

    static func start() async throws -> FakeSMSProvider {
        let received = NIOLockedValueBox<[Received]>([])
        let refusing = NIOLockedValueBox(false)
        let router = Router()
        for (path, answer) in answers {
            router.post(RouterPath(path)) { request, _ -> Response in
                let text = String(buffer: try await request.body.collect(upTo: 1 << 16))
                let form = formFields(text)
                received.withLockedValue {
                    $0.append(
                        Received(
                            path: request.uri.path, authorization: request.headers[.authorization], contentType: request.headers[.contentType],
                            form: form))
                }
                let (status, body) = refusing.withLockedValue { $0 } ? answer.refused : answer.ok
                return Response(
                    status: .init(code: status), headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
            }
        }
        let server = try await LoopbackHTTPServer.start(router, label: "fake-sms-provider")
        return FakeSMSProvider(baseURL: server.baseURL, received: received, refusing: refusing, server: server)
    }
}

/// `GOTRUE_SMS_PROVIDER` `messagebird`, `vonage` and `textlocal`: each code goes out in the
/// form post GoTrue sends, and a provider's refusal is `sms_send_failed` with its words.
@Suite("SMS providers: MessageBird, Vonage, Textlocal")
struct SMSProviderTests {
    static func provider(_ name: String, _ fake: FakeSMSProvider) -> @Sendable (inout ServerConfiguration) -> Void {
        let base = fake.baseURL
        return { configuration in
            configuration.phone.enabled = true
            configuration.phone.provider = name
            configuration.phone.messageBirdAccessKey = "mb-access-key"
            configuration.phone.messageBirdOriginator = "Latchkey"
            configuration.phone.vonageAPIKey = "vonage-key"
            configuration.phone.vonageAPISecret = "vonage-secret"
            configuration.phone.vonageFrom = "Latchkey"
            configuration.phone.textlocalAPIKey = "textlocal-key"
            configuration.phone.textlocalSender = "LTCHKY"
            configuration.phone.providerURLOverride = base
            configuration.external.allowLoopbackProviders = true
        }
    }

    /// Sends a code to 15555550123 through `name`, then signs in with it; returns the request.
    static func sendAndSignIn(_ name: String, code: (FakeSMSProvider.Received) -> String?) async throws -> FakeSMSProvider.Received {
        let fake = try await FakeSMSProvider.start()
        defer { Task { await fake.stop() } }
        return try await TestServer.with(configure: provider(name, fake)) { server in
            let sent = try await server.request(.POST, "/otp", json: ["phone": "+15555550123"])
            #expect(sent.status == 200, "\(name): \(sent.text)")
            let request = try #require(fake.requests.last)
            #expect(request.contentType == "application/x-www-form-urlencoded")
            let text = try #require(code(request))
            #expect(text.hasPrefix("Your code is "))
            let verified = try await server.request(
                .POST, "/verify", json: ["type": "sms", "phone": "15555550123", "token": String(text.dropFirst("Your code is ".count))])
            #expect(verified.status == 200, "\(name): \(verified.text)")
            return request
        }
    }

    @Test("MessageBird: POST /messages with AccessKey, originator, recipients, body, type sms, unicode")
    func messageBird() async throws {
        let request = try await Self.sendAndSignIn("messagebird") { $0.form["body"] }
        #expect(request.path == "/messages")
        #expect(request.authorization == "AccessKey mb-access-key")
        #expect(request.form["originator"] == "Latchkey")
        #expect(request.form["recipients"] == "15555550123")
        #expect(request.form["type"] == "sms")
        #expect(request.form["datacoding"] == "unicode")
    }

    @Test("Vonage: POST /sms/json with from, to, text, api_key and api_secret")
    func vonage() async throws {
        let request = try await Self.sendAndSignIn("vonage") { $0.form["text"] }
        #expect(request.path == "/sms/json")
        #expect(request.form["from"] == "Latchkey")
        #expect(request.form["to"] == "15555550123")
        #expect(request.form["api_key"] == "vonage-key")
        #expect(request.form["api_secret"] == "vonage-secret")
        #expect(request.form["type"] == nil, "an ASCII text is not sent as unicode")
    }

    @Test("Textlocal: POST /send with sender, apikey, message and numbers")
    func textlocal() async throws {
        let request = try await Self.sendAndSignIn("textlocal") { $0.form["message"] }
        #expect(request.path == "/send")
        #expect(request.form["sender"] == "LTCHKY")
        #expect(request.form["apikey"] == "textlocal-key")
        #expect(request.form["numbers"] == "15555550123")
    }

    @Test("each provider's refusal is 422 sms_send_failed with its own words, never a key or secret; WhatsApp is refused")
    func refusals() async throws {
        let fake = try await FakeSMSProvider.start()
        defer { Task { await fake.stop() } }
        fake.setRefusing(true)
        for (name, words) in [
            ("messagebird", "no (correct) recipients found"), ("vonage", "Bad Credentials"), ("textlocal", "No recipients specified"),
        ] {
            try await TestServer.with(configure: Self.provider(name, fake)) { server in
                let failed = try await server.request(.POST, "/otp", json: ["phone": "15555550123"])
                #expect(failed.status == 422 && failed.errorCode == "sms_send_failed", "\(name): \(failed.text)")
                #expect((failed["msg"] as? String)?.contains(words) == true, "\(name): \(failed.text)")
                for secret in ["mb-access-key", "vonage-secret", "textlocal-key"] { #expect(!failed.text.contains(secret)) }
                let whatsapp = try await server.request(.POST, "/otp", json: ["phone": "15555550124", "channel": "whatsapp"])
                #expect(whatsapp.status == 422 && whatsapp.errorCode == "sms_send_failed", "\(name): \(whatsapp.text)")
            }
        }
    }
}
