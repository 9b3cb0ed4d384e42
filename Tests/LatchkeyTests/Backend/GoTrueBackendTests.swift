import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// Records requests and answers with canned responses: checks what goes on the wire. Behaviour
/// against a real server is in `EndToEnd/`.
final class RecordingTransport: HTTPTransport, @unchecked Sendable {
    let requests = LockedValue<[HTTPRequest]>([])
    let response: HTTPResponse

    init(_ response: HTTPResponse) {
        self.response = response
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        requests.withLock { $0.append(request) }
        return response
    }
}

@Suite("GoTrue wire format")
struct GoTrueBackendTests {
    static let base = URL(string: "https://project.example.co/auth/v1")!

    @Test("Refresh posts the token to /token?grant_type=refresh_token with apikey and bearer anon key")
    func refreshRequest() async throws {
        let body = Data(SessionDecodingTests.goTrueSession.utf8)
        let transport = RecordingTransport(HTTPResponse(status: 200, body: body))
        let backend = GoTrueBackend(configuration: .init(baseURL: Self.base, apiKey: "anon-key"), transport: transport)
        let session = try await backend.refresh(refreshToken: "r-1")
        #expect(session.refreshToken == "r3fr3sh-s3cr3t")
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://project.example.co/auth/v1/token?grant_type=refresh_token")
        #expect(request.headers["apikey"] == "anon-key")
        #expect(request.headers["Authorization"] == "Bearer anon-key")
        #expect(request.headers["Content-Type"] == "application/json")
        let json = try JSONSerialization.jsonObject(with: try #require(request.body)) as? [String: String]
        #expect(json == ["refresh_token": "r-1"])
    }

    @Test("Sign in with Apple's authorization code goes with the ID token as apple_authorization_code; without one, nothing extra")
    func appleAuthorizationCode() async throws {
        let body = Data(SessionDecodingTests.goTrueSession.utf8)
        let transport = RecordingTransport(HTTPResponse(status: 200, body: body))
        let backend = GoTrueBackend(configuration: .init(baseURL: Self.base, apiKey: "anon-key"), transport: transport)
        _ = try await backend.signInWithIDToken(
            provider: "apple", idToken: "id-1", nonce: "n-1", accessToken: nil, appleAuthorizationCode: "code-1", linkingTo: nil)
        _ = try await backend.signInWithIDToken(provider: "apple", idToken: "id-2", nonce: nil, accessToken: nil, linkingTo: nil)
        let requests = transport.requests.withLock { $0 }
        #expect(requests.count == 2)
        #expect(requests.first?.url.absoluteString == "https://project.example.co/auth/v1/token?grant_type=id_token")
        let first = try JSONSerialization.jsonObject(with: try #require(requests.first?.body)) as? [String: String]
        #expect(first == ["provider": "apple", "id_token": "id-1", "nonce": "n-1", "apple_authorization_code": "code-1"])
        let second = try JSONSerialization.jsonObject(with: try #require(requests.last?.body)) as? [String: String]
        #expect(second == ["provider": "apple", "id_token": "id-2"])
    }

    @Test("the Apple credential's description and mirror never show the authorization code")
    func appleCredentialRedacts() {
        let credential = AppleSignInCredential(identityToken: "secret-id-token", authorizationCode: "secret-code")
        let shown = [String(describing: credential), String(reflecting: credential), "\(Mirror(reflecting: credential).children.map(\.value))"]
        for text in shown { #expect(!text.contains("secret-code") && !text.contains("secret-id-token"), "\(text)") }
    }

    @Test("Sign-out sends the user's token and the scope")
    func signOutRequest() async throws {
        let transport = RecordingTransport(HTTPResponse(status: 204))
        let backend = GoTrueBackend(configuration: .init(baseURL: Self.base, apiKey: "anon-key"), transport: transport)
        try await backend.signOut(accessToken: "user-jwt", scope: .global)
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.url.absoluteString.hasSuffix("/logout?scope=global"))
        #expect(request.headers["Authorization"] == "Bearer user-jwt")
    }

    @Test("Sign-up without auto-confirm returns the user awaiting confirmation")
    func signUpConfirmation() async throws {
        let user = #"{"id":"u-1","email":"ada@example.com","confirmation_sent_at":"2025-06-15T14:26:40Z"}"#
        let backend = GoTrueBackend(
            configuration: .init(baseURL: Self.base), transport: RecordingTransport(HTTPResponse(status: 200, body: Data(user.utf8))))
        let result = try await backend.signUp(email: "ada@example.com", password: "pw", data: [:])
        guard case .confirmationRequired(let pending) = result else {
            Issue.record("expected confirmationRequired, got \(result)")
            return
        }
        #expect(pending.id == "u-1")
    }

    @Test("Error bodies: current shape, OAuth shape, header-only code, Retry-After")
    func errorShapes() {
        let current = GoTrueBackend.error(
            from: HTTPResponse(
                status: 400, headers: ["X-Sb-Error-Code": "ignored-when-body-has-one"],
                body: Data(#"{"code":400,"error_code":"refresh_token_already_used","msg":"Invalid Refresh Token: Already Used"}"#.utf8)))
        #expect(current == .server(status: 400, code: "refresh_token_already_used", message: "Invalid Refresh Token: Already Used", retryAfter: nil))

        let oauth = GoTrueBackend.error(
            from: HTTPResponse(
                status: 400, body: Data(#"{"error":"invalid_grant","error_description":"Invalid Refresh Token: Refresh Token Not Found"}"#.utf8)))
        #expect(oauth.definitiveSignOutReason == .sessionRevoked(code: "refresh_token_not_found"))

        let headerOnly = GoTrueBackend.error(
            from: HTTPResponse(status: 403, headers: ["x-sb-error-code": "session_not_found"], body: Data("<html>".utf8)))
        #expect(headerOnly.code == "session_not_found")

        let limited = GoTrueBackend.error(from: HTTPResponse(status: 429, headers: ["Retry-After": "17"], body: Data()))
        #expect(AuthFailure(limited).category == .rateLimited(retryAfter: 17))
    }

    @Test("A 2xx body that is not a session is an invalid response, not a crash")
    func invalidBody() async {
        let backend = GoTrueBackend(
            configuration: .init(baseURL: Self.base), transport: RecordingTransport(HTTPResponse(status: 200, body: Data("<html>".utf8))))
        await #expect(throws: BackendError.invalidResponse(reason: "cannot decode SessionResponse")) {
            try await backend.refresh(refreshToken: "r")
        }
    }

    @Test("URLSession transport reports a refused connection as offline")
    func offline() async throws {
        // Port 9 (discard) on loopback is closed on any sane test machine.
        let backend = GoTrueBackend(configuration: .init(baseURL: URL(string: "http://127.0.0.1:9")!, requestTimeout: 5))
        do {
            _ = try await backend.refresh(refreshToken: "r")
            Issue.record("expected a transport failure")
        } catch let error as BackendError {
            #expect(error.isTransient)
            #expect(error.definitiveSignOutReason == nil)
            #expect(AuthFailure(error).category == .network)
        }
    }
}
