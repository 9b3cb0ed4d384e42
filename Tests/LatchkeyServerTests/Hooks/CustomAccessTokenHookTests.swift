import Foundation
import Hummingbird
import LatchkeyTesting
import NIOConcurrencyHelpers
import Testing

@testable import LatchkeyServer

/// A local auth hook: it records what it is sent and answers as `mode` says.
final class FakeHook: Sendable {
    enum Mode: Sendable {
        /// Adds `"plan": "pro"` to the claims it was sent.
        case addClaim
        /// Answers the claims it was sent, changed by the function.
        case edit(@Sendable (inout [String: Any]) -> Void)
        /// Answers `status` with `body` of `contentType`.
        case answer(status: Int, contentType: String?, body: String, retryAfter: Bool = false)
        /// Does not answer until the test is over.
        case hang
    }

    static let secret = "v1,whsec_" + Data("a hook secret of some length".utf8).base64EncodedString()
    let url: String
    private let mode: NIOLockedValueBox<Mode>
    private let received: NIOLockedValueBox<[(headers: [String: String], body: Data)]>
    private let done: NIOLockedValueBox<Bool>
    private let server: LoopbackHTTPServer

    private init(
        url: String, mode: NIOLockedValueBox<Mode>, received: NIOLockedValueBox<[(headers: [String: String], body: Data)]>,
        done: NIOLockedValueBox<Bool>, server: LoopbackHTTPServer
    ) {
        self.url = url
        self.mode = mode
        self.received = received
        self.done = done
        self.server = server
    }

    func set(_ mode: Mode) { self.mode.withLockedValue { $0 = mode } }
    /// What it was sent, oldest first: the headers and the body as sent.
    var rawRequests: [(headers: [String: String], body: Data)] { received.withLockedValue { $0 } }

    /// Whether the last request carries the Standard Webhooks signature of its body, its
    /// `webhook-id` and `webhook-timestamp` with ``secret``.
    func lastRequestIsSigned() throws -> Bool {
        let request = try #require(rawRequests.last)
        let key = try #require(Data(base64Encoded: String(Self.secret.dropFirst("v1,whsec_".count))))
        let id = try #require(request.headers["webhook-id"])
        let timestamp = try #require(request.headers["webhook-timestamp"].flatMap(TimeInterval.init))
        let expected = WebhookSignature.headers(
            id: id, timestamp: Date(timeIntervalSince1970: timestamp), body: request.body, keys: [.init(data: key)])
        return request.headers["webhook-signature"] == expected.first { $0.0 == "webhook-signature" }?.1
    }
    /// What it was sent, oldest first: the headers and the JSON body.
    var requests: [(headers: [String: String], body: [String: Any])] {
        received.withLockedValue { $0 }.map { ($0.headers, (try? JSONSerialization.jsonObject(with: $0.body)) as? [String: Any] ?? [:]) }
    }

    static func start() async throws -> FakeHook {
        let mode = NIOLockedValueBox(Mode.addClaim)
        let received = NIOLockedValueBox<[(headers: [String: String], body: Data)]>([])
        let done = NIOLockedValueBox(false)
        let router = Router()
        router.post("/hook") { request, context -> Response in
            let data = Data(buffer: try await request.body.collect(upTo: 1 << 20))
            let input = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
            var headers: [String: String] = [:]
            for field in request.headers { headers[field.name.canonicalName] = field.value }
            received.withLockedValue { $0.append((headers: headers, body: data)) }
            func json(_ object: Any) throws -> Response {
                Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: object))))
            }
            switch mode.withLockedValue({ $0 }) {
            case .addClaim:
                var claims = input["claims"] as? [String: Any] ?? [:]
                claims["plan"] = "pro"
                return try json(["claims": claims])
            case .edit(let change):
                var claims = input["claims"] as? [String: Any] ?? [:]
                change(&claims)
                return try json(["claims": claims])
            case .answer(let status, let contentType, let body, let retryAfter):
                var headers = HTTPFields()
                if let contentType { headers[.contentType] = contentType }
                if retryAfter { headers[.retryAfter] = "1" }
                return Response(status: .init(code: status), headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
            case .hang:
                let deadline = ContinuousClock.now + .seconds(60)
                while !done.withLockedValue({ $0 }), ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(50)) }
                return try json(["claims": [:] as [String: Any]])
            }
        }
        let server = try await LoopbackHTTPServer.start(router, label: "fake-hook")
        return FakeHook(url: server.baseURL + "/hook", mode: mode, received: received, done: done, server: server)
    }

    func stop() async {
        done.withLockedValue { $0 = true }
        try? await server.stop()
    }
}

/// Why a server whose hook at `hook` is on, at `uri` with ``FakeHook/secret`` and then changed
/// by `change`, refuses to start (SQLite store); `nil` when it starts.
func hookConfigurationRefusal(
    _ hook: WritableKeyPath<AuthHooks, AuthHookSettings>, uri: String, _ change: (inout AuthHookSettings) -> Void
) -> String? {
    var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
    configuration.hooks[keyPath: hook].enabled = true
    configuration.hooks[keyPath: hook].uri = uri
    configuration.hooks[keyPath: hook].secrets = FakeHook.secret
    change(&configuration.hooks[keyPath: hook])
    do {
        try configuration.validate()
        return nil
    } catch {
        return "\(error)"
    }
}

/// The payload of a JWT, decoded without checking it.
func unverifiedClaims(of token: String) throws -> [String: Any] {
    let parts = token.split(separator: ".")
    guard parts.count == 3 else { throw TestFailure("not a JWT") }
    var text = parts[1].replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    while text.count % 4 != 0 { text += "=" }
    guard let data = Data(base64Encoded: text), let claims = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
        throw TestFailure("unreadable JWT payload")
    }
    return claims
}

/// GoTrue's custom access token hook over HTTP (`GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_*`) against a
/// local hook: every token issued carries what the hook answers; what the hook does wrong is
/// GoTrue's hook error and no token.
@Suite("custom access token hook")
struct CustomAccessTokenHookTests {
    static func hooked(_ hook: FakeHook) -> @Sendable (inout ServerConfiguration) -> Void {
        let url = hook.url
        return { configuration in
            configuration.autoconfirm = true
            configuration.hooks.customAccessToken.enabled = true
            configuration.hooks.customAccessToken.uri = url
            configuration.hooks.customAccessToken.secrets = FakeHook.secret
        }
    }

    @Test("sign-up, password sign-in and refresh tokens carry the hook's claim; the hook gets GoTrue's input, signed; GET /user takes the tokens")
    func addsClaims() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: Self.hooked(hook)) { server in
            let signedUp = try await server.signUp("hooked@example.com")
            #expect(try unverifiedClaims(of: signedUp.accessToken)["plan"] as? String == "pro")
            let signIn = try #require(TestSession(try await server.signIn("hooked@example.com")))
            #expect(try unverifiedClaims(of: signIn.accessToken)["plan"] as? String == "pro")
            let refreshed = try #require(TestSession(try await server.refresh(signIn.refreshToken)))
            let claims = try unverifiedClaims(of: refreshed.accessToken)
            #expect(claims["plan"] as? String == "pro" && claims["sub"] as? String == signIn.userID)
            let user = try await server.request(.GET, "/user", bearer: refreshed.accessToken)
            #expect(user.status == 200 && user["id"] as? String == signIn.userID, "\(user.text)")

            let requests = hook.requests
            #expect(requests.count == 3)
            let methods = requests.map { $0.body["authentication_method"] as? String }
            #expect(methods == ["password", "password", "token_refresh"], "\(methods)")
            let last = try #require(requests.last)
            #expect(last.body["user_id"] as? String == signIn.userID)
            let metadata = try #require(last.body["metadata"] as? [String: Any])
            #expect(metadata["name"] as? String == "customize-access-token" && metadata["uuid"] is String && metadata["time"] is String)
            let sent = try #require(last.body["claims"] as? [String: Any])
            for name in CustomAccessTokenHook.requiredClaims { #expect(sent[name] != nil, "\(name) is sent to the hook") }
            #expect(last.headers["webhook-id"] != nil && last.headers["webhook-timestamp"] != nil)
            #expect(last.headers["webhook-signature"]?.hasPrefix("v1,") == true)
        }
    }

    @Test("a phone sign-up with SMS autoconfirm that the hook refuses stores nothing: the same number signs up once the hook agrees")
    func refusedPhoneSignUp() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        let hooked = Self.hooked(hook)
        try await TestServer.with(configure: { configuration in
            hooked(&configuration)
            configuration.phone.enabled = true
            configuration.phone.autoconfirm = true
        }) { server in
            let body: [String: any Sendable] = ["phone": "+447700900124", "password": "phone password 1"]
            hook.set(.answer(status: 200, contentType: "application/json", body: #"{"error": {"http_code": 422, "message": "Not this one"}}"#))
            let refused = try await server.request(.POST, "/signup", json: body)
            #expect(refused.status == 422 && refused["msg"] as? String == "Not this one", "\(refused.text)")
            hook.set(.addClaim)
            let accepted = try await server.request(.POST, "/signup", json: body)
            #expect(accepted.status == 200, "\(accepted.text)")
            let token = try #require(accepted["access_token"] as? String)
            #expect(try unverifiedClaims(of: token)["plan"] as? String == "pro")
        }
    }

    @Test("the hook's own error is the client's; garbage, HTML, a non-2xx, a 429 without Retry-After are GoTrue's hook errors")
    func hookFailures() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: Self.hooked(hook)) { server in
            // A refused sign-up stores nothing: the same address signs up once the hook agrees.
            hook.set(.answer(status: 200, contentType: "application/json", body: #"{"error": {"http_code": 422, "message": "Not this one"}}"#))
            let refused = try await server.request(.POST, "/signup", json: ["email": "failing@example.com", "password": "correct horse battery"])
            #expect(refused.status == 422 && refused["msg"] as? String == "Not this one", "\(refused.text)")
            hook.set(.addClaim)
            try await server.signUp("failing@example.com")
            let cases: [(FakeHook.Mode, Int, String, String)] = [
                (
                    .answer(status: 200, contentType: "application/json", body: #"{"error": {"http_code": 403, "message": "Banned for now"}}"#), 403,
                    "unknown", "Banned for now"
                ),
                (
                    .answer(status: 200, contentType: "application/json", body: "{not json"), 500, "unexpected_failure",
                    "Error unmarshaling JSON output."
                ),
                (
                    .answer(status: 200, contentType: "text/html", body: "<html>"), 400, "hook_payload_invalid_content_type",
                    "Invalid JSON response. Received content-type: text/html"
                ),
                (
                    .answer(status: 200, contentType: nil, body: "{}"), 400, "hook_payload_invalid_content_type",
                    "Invalid Content-Type: Missing Content-Type header"
                ),
                (
                    .answer(status: 200, contentType: "application/json", body: #"{"nothing": 1}"#), 500, "unexpected_failure",
                    "output claims field is missing"
                ),
                (
                    .answer(status: 500, contentType: "application/json", body: "{}"), 500, "unexpected_failure",
                    "Unexpected status code returned from hook: 500"
                ),
                (.answer(status: 401, contentType: nil, body: ""), 500, "unexpected_failure", "Hook requires authorization token"),
                (.answer(status: 429, contentType: nil, body: ""), 500, "unexpected_failure", "Service currently unavailable due to hook"),
            ]
            for (mode, status, code, message) in cases {
                hook.set(mode)
                let response = try await server.signIn("failing@example.com")
                #expect(response.status == status && response.errorCode == code && response["msg"] as? String == message, "\(mode): \(response.text)")
                #expect(response["access_token"] == nil)
            }
            // A 503 with Retry-After is tried again, three times in all.
            let before = hook.requests.count
            hook.set(.answer(status: 503, contentType: nil, body: "", retryAfter: true))
            let unavailable = try await server.signIn("failing@example.com")
            #expect(unavailable.status == 500 && hook.requests.count == before + 3, "\(unavailable.text)")
        }
    }

    @Test("claims that drop a required claim or change one's type are refused, and no token is issued")
    func claimValidation() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: Self.hooked(hook)) { server in
            let session = try await server.signUp("claims@example.com")
            let edits: [(String, @Sendable (inout [String: Any]) -> Void)] = [
                ("sub is required", { $0["sub"] = nil }),
                ("session_id is required", { $0["session_id"] = nil }),
                ("aud: Invalid type", { $0["aud"] = 42 }),
                ("sub: Invalid type", { $0["sub"] = ["someone-else"] }),
                ("exp: Invalid type", { $0["exp"] = "tomorrow" }),
                ("app_metadata: Invalid type", { $0["app_metadata"] = "admin" }),
            ]
            for (problem, edit) in edits {
                hook.set(.edit(edit))
                let refreshed = try await server.refresh(session.refreshToken)
                #expect(refreshed.status == 500 && refreshed.errorCode == "unexpected_failure", "\(problem): \(refreshed.text)")
                #expect((refreshed["msg"] as? String)?.contains(problem) == true, "\(problem): \(refreshed.text)")
            }
            // A claim changed within its type is the hook's to decide, as in GoTrue.
            hook.set(.edit { $0["role"] = "premium" })
            let signedIn = try #require(TestSession(try await server.signIn("claims@example.com")))
            #expect(try unverifiedClaims(of: signedIn.accessToken)["role"] as? String == "premium")
        }
    }

    @Test("a hook that does not answer within its time limit is hook_timeout")
    func timeout() async throws {
        let hook = try await FakeHook.start()
        defer { Task { await hook.stop() } }
        try await TestServer.with(configure: {
            Self.hooked(hook)(&$0)
            $0.hooks.httpTimeout = 10
        }) { server in
            try await server.signUp("slow@example.com")
            hook.set(.hang)
            let response = try await server.signIn("slow@example.com")
            #expect(response.status == 422 && response.errorCode == "hook_timeout", "\(response.text)")
        }
    }

    @Test("a hook nobody listens at is a 422 hook error, and the sign-up is not stored")
    func unreachable() async throws {
        let hook = try await FakeHook.start()
        await hook.stop()
        try await TestServer.with(configure: Self.hooked(hook)) { server in
            let response = try await server.request(.POST, "/signup", json: ["email": "nobody@example.com", "password": "correct horse battery"])
            // AsyncHTTPClient keeps trying to connect until the 5 seconds are over: hook_timeout;
            // connections refused sooner than that are hook_timeout_after_retry.
            #expect(response.status == 422 && ["hook_timeout", "hook_timeout_after_retry"].contains(response.errorCode), "\(response.text)")
        }
    }

    @Test("bad URIs and secrets are refused at start, naming the setting and never the secret")
    func configuration() throws {
        func refusal(uri: String?, secrets: String?) -> String? {
            var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
            configuration.hooks.customAccessToken.enabled = true
            configuration.hooks.customAccessToken.uri = uri
            configuration.hooks.customAccessToken.secrets = secrets
            do {
                try configuration.validate()
                return nil
            } catch { return error.description }
        }
        let good = FakeHook.secret
        #expect(refusal(uri: "https://hooks.example.com/token", secrets: good) == nil)
        #expect(refusal(uri: "http://localhost:9999/token", secrets: good) == nil)
        #expect(refusal(uri: "http://[::1]:9999/token", secrets: "\(good)|\(good)") == nil)
        #expect(refusal(uri: "http://host.docker.internal:54321/token", secrets: good) == nil, "the Supabase CLI's local setup, as GoTrue allows")
        #expect(refusal(uri: nil, secrets: good) == nil, "starts, as GoTrue, with a warning (StartsLikeGoTrueTests)")
        #expect(refusal(uri: "http://hooks.example.com/token", secrets: good)?.contains("must be https") == true)
        #expect(refusal(uri: "ftp://hooks.example.com/token", secrets: good)?.contains("must be an https URL") == true)
        #expect(refusal(uri: "pg-functions://postgres/public/custom_claims", secrets: nil)?.contains("PostgreSQL function") == true)
        #expect(refusal(uri: "https://hooks.example.com/token", secrets: nil)?.contains("GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_SECRETS") == true)
        for (bad, key) in [("whsec_c2VjcmV0", "c2VjcmV0"), ("v1,c2VjcmV0", "c2VjcmV0"), ("v1,whsec_not base64!", "not base64"), ("v1,whsec_", nil)] {
            let message = refusal(uri: "https://hooks.example.com/token", secrets: bad)
            #expect(message?.contains("GOTRUE_HOOK_CUSTOM_ACCESS_TOKEN_SECRETS") == true, "\(bad)")
            if let key { #expect(message?.contains(key) == false, "the secret is not in the message") }
        }
    }

    @Test("the signature is Standard Webhooks' v1 HMAC-SHA256 of id.timestamp.body, one per secret")
    func signature() throws {
        // The example of the Standard Webhooks specification.
        let key = try #require(Data(base64Encoded: "MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"))
        let headers = WebhookSignature.headers(
            id: "msg_p5jXN8AQM9LWM0D4loKWxJek", timestamp: Date(timeIntervalSince1970: 1_614_265_330),
            body: Data(#"{"test": 2432232314}"#.utf8), keys: [.init(data: key), .init(data: key)])
        let signature = "v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE="
        #expect(headers.first { $0.0 == "webhook-signature" }?.1 == "\(signature) \(signature)")
        #expect(headers.first { $0.0 == "webhook-timestamp" }?.1 == "1614265330")
    }
}
