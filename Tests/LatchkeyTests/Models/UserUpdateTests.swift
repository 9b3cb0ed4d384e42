import Foundation
import Testing

@testable import Latchkey

@Suite("UserUpdate")
struct UserUpdateTests {
    @Test("is sent as GoTrue's PUT /user body: only the fields set, metadata as JSON")
    func wireShape() async throws {
        let user = #"{"id":"3f1e5c1a-0000-4000-8000-000000000001","email":"ada@example.com"}"#
        let transport = RecordingTransport(HTTPResponse(status: 200, body: Data(user.utf8)))
        let backend = GoTrueBackend(configuration: .init(baseURL: GoTrueBackendTests.base, apiKey: "anon-key"), transport: transport)
        _ = try await backend.updateUser(
            accessToken: "user-jwt",
            UserUpdate(password: "new password 1", data: ["display_name": .string("Ada"), "age": .number(36)], nonce: "123456"))
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.method == "PUT")
        #expect(request.url.absoluteString.hasSuffix("/user"))
        #expect(request.headers["Authorization"] == "Bearer user-jwt")
        let body = try #require(request.body)
        let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        #expect(Set(json.keys) == ["password", "data", "nonce"])
        #expect(json["password"] as? String == "new password 1")
        #expect(json["nonce"] as? String == "123456")
        #expect((json["data"] as? [String: Any])?["display_name"] as? String == "Ada")
        #expect((json["data"] as? [String: Any])?["age"] as? Int == 36)
    }

    @Test("printing, interpolating or dumping one never shows the password or the nonce")
    func redacted() {
        let update = UserUpdate(email: "ada@example.com", password: "hunter2 hunter2", nonce: "654321")
        var dumped = ""
        dump(update, to: &dumped)
        for text in [update.description, update.debugDescription, "\(update)", String(reflecting: update), dumped] {
            #expect(!text.contains("hunter2") && !text.contains("654321"), "\(text)")
            #expect(text.contains("ada@example.com"))
        }
    }
}
