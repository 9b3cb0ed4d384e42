import Foundation
import HTTPTypes
import Hummingbird
import Testing

@testable import LatchkeyServer

/// An ``AuthError`` answers for itself (Hummingbird's `HTTPResponseError`): GoTrue's error
/// shapes by API version, the error code header, and a rate limit's `Retry-After`.
@Suite("AuthError's own answer")
struct AuthErrorResponseTests {
    static func request(apiVersion: String? = nil) -> Request {
        var head = HTTPRequest(method: .post, scheme: "http", authority: "127.0.0.1", path: "/token")
        if let apiVersion { head.headerFields[.supabaseAPIVersion] = apiVersion }
        return Request(head: head, body: .init(buffer: ByteBuffer()))
    }

    static func json(_ response: Response) async throws -> [String: Any] {
        let writer = CollectingWriter()
        try await response.body.write(writer)
        let buffer = await writer.collected
        return try #require(try JSONSerialization.jsonObject(with: Data(buffer.readableBytesView)) as? [String: Any])
    }

    @Test("the default shape, the 2024-01-01 shape with the header echoed, OAuth's shape; the code header and Retry-After")
    func shapes() async throws {
        let standard = AuthError.invalidCredentials.response(to: Self.request())
        #expect(standard.status == .badRequest)
        #expect(standard.headers[.supabaseErrorCode] == "invalid_credentials")
        #expect(standard.headers[.supabaseAPIVersion] == nil)
        let body = try await Self.json(standard)
        #expect(body["code"] as? Int == 400 && body["error_code"] as? String == "invalid_credentials")
        #expect(body["msg"] as? String == "Invalid login credentials")

        let versioned = AuthError.invalidCredentials.response(to: Self.request(apiVersion: "2024-01-01"))
        #expect(versioned.headers[.supabaseAPIVersion] == "2024-01-01")
        let newShape = try await Self.json(versioned)
        #expect(newShape["code"] as? String == "invalid_credentials" && newShape["message"] as? String == "Invalid login credentials")
        #expect(newShape["msg"] == nil)

        let oauth = AuthError.badIDToken.response(to: Self.request(apiVersion: "2024-01-01"))
        #expect(oauth.headers[.supabaseErrorCode] == nil)
        let oauthBody = try await Self.json(oauth)
        #expect(oauthBody["error"] as? String == "invalid request" && oauthBody["error_description"] as? String == "Bad ID token")

        var limited = AuthError(.tooManyRequests, "over_request_rate_limit", "Request rate limit reached")
        limited.retryAfter = 17
        #expect(limited.response(to: Self.request()).headers[.retryAfter] == "17")
        // Hummingbird sees the error's own status.
        let asResponseError: any HTTPResponseError = limited
        #expect(asResponseError.status == .tooManyRequests)
    }
}

/// Collects a response body.
private actor CollectingWriter: ResponseBodyWriter {
    var collected = ByteBuffer()

    func write(_ buffer: ByteBuffer) async throws {
        var buffer = buffer
        collected.writeBuffer(&buffer)
    }

    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
