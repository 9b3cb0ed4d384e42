import Foundation
import LatchkeyWire
import Testing

@Suite("GoTrue messages")
struct MessageTests {
    @Test("every error shape a client meets yields its code and text")
    func errorShapes() throws {
        func read(_ json: String) throws -> ErrorResponse { try JSONDecoder().decode(ErrorResponse.self, from: Data(json.utf8)) }
        let standard = try read(#"{"code":400,"error_code":"invalid_credentials","msg":"Invalid login credentials"}"#)
        #expect(standard.errorCode == "invalid_credentials")
        #expect(standard.text == "Invalid login credentials")
        let versioned = try read(#"{"code":"weak_password","message":"Too short","weak_password":{"reasons":["length"]}}"#)
        #expect(versioned.errorCode == "weak_password")
        #expect(versioned.text == "Too short")
        #expect(versioned.weak_password?.reasons == ["length"])
        let oauth = try read(#"{"error":"invalid_grant","error_description":"Invalid Refresh Token: Already Used"}"#)
        #expect(oauth.errorCode == "invalid_grant")
        #expect(oauth.text == "Invalid Refresh Token: Already Used")
        let gateway = try read(#"{"message":"no Route matched with those values"}"#)
        #expect(gateway.errorCode == nil)
        #expect(gateway.text == "no Route matched with those values")
    }

    @Test("the server's two error shapes encode as GoTrue writes them")
    func errorEncoding() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let standard = ErrorResponse.standard(status: 422, code: "weak_password", message: "Short", weakPasswordReasons: ["length"])
        #expect(
            String(decoding: try encoder.encode(standard), as: UTF8.self)
                == #"{"code":422,"error_code":"weak_password","msg":"Short","weak_password":{"reasons":["length"]}}"#)
        let versioned = ErrorResponse.apiVersion20240101(code: "bad_jwt", message: "Invalid JWT")
        #expect(String(decoding: try encoder.encode(versioned), as: UTF8.self) == #"{"code":"bad_jwt","message":"Invalid JWT"}"#)
    }

    @Test("a user object with only an id decodes; unknown fields are ignored")
    func tolerantUser() throws {
        let user = try JSONDecoder().decode(UserResponse.self, from: Data(#"{"id":"u1","factors":[],"is_sso_user":false}"#.utf8))
        #expect(user.id == "u1")
        #expect(user.email == nil)
        #expect(throws: (any Error).self) { try JSONDecoder().decode(UserResponse.self, from: Data(#"{"email":"a@b.co"}"#.utf8)) }
    }

    @Test("a session round-trips and its fragment carries GoTrue's parameters")
    func sessionFragment() throws {
        let session = SessionResponse(
            access_token: "a.b.c", expires_in: 3600, expires_at: 1_750_003_600, refresh_token: "r+/=", user: UserResponse(id: "u1"))
        let decoded = try JSONDecoder().decode(SessionResponse.self, from: try JSONEncoder().encode(session))
        #expect(decoded == session)
        let fragment = session.fragment(type: "signup")
        #expect(fragment.hasPrefix("access_token=a.b.c&expires_at=1750003600&expires_in=3600&refresh_token="))
        #expect(fragment.hasSuffix("&token_type=bearer&type=signup"))
        #expect(!fragment.contains("r+/="), "the refresh token is percent-encoded")
    }

    @Test("printing or dumping a message never shows a password or a token")
    func secretsRedacted() {
        let secrets = ["hunter2 hunter2", "refresh-secret", "link-token", "hash-token", "a.b.c"]
        var dumps: [String] = []
        let values: [Any] = [
            SignUpBody(email: "a@b.co", password: secrets[0]), PasswordGrantBody(email: "a@b.co", password: secrets[0]),
            RefreshGrantBody(refresh_token: secrets[1]), UpdateUserBody(password: secrets[0]),
            VerifyBody(type: "signup", token: secrets[2], token_hash: secrets[3]), AdminUserBody(email: "a@b.co", password: secrets[0]),
            SessionResponse(access_token: secrets[4], expires_in: 1, expires_at: 1, refresh_token: secrets[1], user: UserResponse(id: "u")),
        ]
        for value in values {
            var dumped = ""
            dump(value, to: &dumped)
            dumps += [String(describing: value), String(reflecting: value), "\(value)", dumped]
        }
        for text in dumps {
            for secret in secrets { #expect(!text.contains(secret), "\(text)") }
        }
        #expect(dumps[0].contains("a@b.co"), "non-secret fields stay readable")
    }
}
