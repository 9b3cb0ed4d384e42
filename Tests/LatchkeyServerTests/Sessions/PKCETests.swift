import Crypto
import Foundation
import Testing

@testable import LatchkeyServer

/// PKCE email flows (supabase-swift's default): links that redirect with `?code=`, and
/// `POST /token?grant_type=pkce`.
@Suite("PKCE")
struct PKCETests {
    static let verifier = "a-verifier-of-more-than-forty-three-characters-0123456789"
    static var s256: String {
        Data(SHA256.hash(data: Data(verifier.utf8))).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }

    func server(_ body: (TestServer) async throws -> Void) async throws {
        try await TestServer.with(configure: {
            $0.autoconfirm = false
            $0.siteURL = "https://app.example.com"
            $0.additionalRedirectURLs = ["com.example.app://callback"]
        }) { server in try await body(server) }
    }

    /// Signs `email` up with a challenge, follows the link, and returns the `code` of the redirect.
    func authCode(_ server: TestServer, _ email: String, challenge: String = PKCETests.s256, method: String = "s256") async throws -> String {
        let signUp = try await server.request(
            .POST, "/signup?redirect_to=com.example.app://callback",
            json: ["email": email, "password": "correct horse battery", "code_challenge": challenge, "code_challenge_method": method])
        #expect(signUp.status == 200, "\(signUp.text)")
        let token = try server.linkToken(to: email, type: "signup")
        #expect(token.hasPrefix("pkce_"))
        let followed = try await server.request(.GET, "/verify?type=signup&token=\(token)&redirect_to=com.example.app://callback")
        #expect(followed.status == 303)
        let location = try #require(followed.headers.first(name: "Location"))
        #expect(location.hasPrefix("com.example.app://callback?code="), "\(location)")
        #expect(!location.contains("access_token"), "no session in a PKCE redirect")
        return try #require(URLComponents(string: location)?.queryItems?.first(where: { $0.name == "code" })?.value)
    }

    @Test("sign-up → link → ?code= → grant_type=pkce gives a session once")
    func signUpFlow() async throws {
        try await server { server in
            let code = try await authCode(server, "pkce@example.com")
            let session = try await server.request(.POST, "/token?grant_type=pkce", json: ["auth_code": code, "code_verifier": Self.verifier])
            #expect(TestSession(session)?.email == "pkce@example.com", "\(session.text)")
            #expect(try await server.request(.GET, "/user", bearer: TestSession(session)!.accessToken).status == 200)
            try await server.request(.POST, "/token?grant_type=pkce", json: ["auth_code": code, "code_verifier": Self.verifier])
                .expectError(404, "flow_state_not_found")
        }
    }

    @Test("a wrong verifier is refused and spends the code; plain challenges work")
    func wrongVerifier() async throws {
        try await server { server in
            let code = try await authCode(server, "wrong@example.com")
            try await server.request(.POST, "/token?grant_type=pkce", json: ["auth_code": code, "code_verifier": Self.verifier + "x"])
                .expectError(400, "bad_code_verifier")
            try await server.request(.POST, "/token?grant_type=pkce", json: ["auth_code": code, "code_verifier": Self.verifier])
                .expectError(404, "flow_state_not_found")
            let plain = try await authCode(server, "plain@example.com", challenge: Self.verifier, method: "plain")
            #expect(
                TestSession(try await server.request(.POST, "/token?grant_type=pkce", json: ["auth_code": plain, "code_verifier": Self.verifier]))
                    != nil)
        }
    }

    @Test("a flow older than five minutes is expired; missing fields and bad challenges are 400")
    func expiryAndValidation() async throws {
        try await server { server in
            let code = try await authCode(server, "slow@example.com")
            server.clock.advance(by: 301)
            try await server.request(.POST, "/token?grant_type=pkce", json: ["auth_code": code, "code_verifier": Self.verifier])
                .expectError(422, "flow_state_expired")
            try await server.request(.POST, "/token?grant_type=pkce", json: ["auth_code": "x"]).expectError(400, "validation_failed")
            try await server.request(.POST, "/token?grant_type=pkce", json: ["auth_code": "made-up", "code_verifier": Self.verifier])
                .expectError(404, "flow_state_not_found")
            for (challenge, method) in [("short", "s256"), (Self.s256, ""), (Self.s256 + "!", "s256"), (Self.s256, "md5")] {
                try await server.request(
                    .POST, "/signup",
                    json: [
                        "email": "bad@example.com", "password": "correct horse battery", "code_challenge": challenge, "code_challenge_method": method,
                    ]
                ).expectError(400, "validation_failed")
            }
            #expect(
                try await server.request(
                    .POST, "/token?grant_type=password", json: ["email": "bad@example.com", "password": "correct horse battery"]
                ).status == 400,
                "a refused challenge created no account")
        }
    }

    @Test("recovery and magic link with a challenge; an error redirect carries the error in query and fragment")
    func recoveryAndErrors() async throws {
        try await server { server in
            let code = try await authCode(server, "again@example.com")
            _ = try await server.request(.POST, "/token?grant_type=pkce", json: ["auth_code": code, "code_verifier": Self.verifier])
            #expect(
                try await server.request(
                    .POST, "/recover", json: ["email": "again@example.com", "code_challenge": Self.s256, "code_challenge_method": "S256"]
                ).status == 200)
            let token = try server.linkToken(to: "again@example.com", type: "recovery")
            let followed = try await server.request(.GET, "/verify?type=recovery&token=\(token)")
            let location = try #require(followed.headers.first(name: "Location"))
            let recoveryCode = try #require(URLComponents(string: location)?.queryItems?.first(where: { $0.name == "code" })?.value)
            #expect(
                TestSession(
                    try await server.request(.POST, "/token?grant_type=pkce", json: ["auth_code": recoveryCode, "code_verifier": Self.verifier]))
                    != nil)
            let reused = try await server.request(.GET, "/verify?type=recovery&token=\(token)")
            let error = try #require(reused.headers.first(name: "Location"))
            #expect(error.hasPrefix("https://app.example.com?"), "\(error)")
            #expect(error.contains("error_code=otp_expired"))
            #expect(error.contains("#error=access_denied"))
        }
    }
}
