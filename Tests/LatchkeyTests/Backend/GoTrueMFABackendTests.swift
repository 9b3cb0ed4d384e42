import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

@Suite("GoTrue wire format: multi-factor")
struct GoTrueMFABackendTests {
    static let base = URL(string: "https://project.example.co/auth/v1")!

    func makeBackend(_ body: String, status: Int = 200) -> (GoTrueBackend, RecordingTransport) {
        let transport = RecordingTransport(HTTPResponse(status: status, body: Data(body.utf8)))
        return (GoTrueBackend(configuration: .init(baseURL: Self.base, apiKey: "anon-key"), transport: transport), transport)
    }

    func json(_ request: HTTPRequest) throws -> [String: String]? {
        guard let body = request.body else { return nil }
        return try JSONSerialization.jsonObject(with: body) as? [String: String]
    }

    @Test("Enroll posts factor_type totp, the name and issuer with the user's token; reads the totp object")
    func enroll() async throws {
        let (backend, transport) = makeBackend(
            #"""
            {"id":"f-1","type":"totp","friendly_name":"Phone",
             "totp":{"qr_code":"<svg xmlns=\"http://www.w3.org/2000/svg\"></svg>","secret":"JBSWY3DPEHPK3PXP",
                     "uri":"otpauth://totp/example.com:ada@example.com?issuer=example.com&secret=JBSWY3DPEHPK3PXP"}}
            """#)
        let enrollment = try await backend.enrollTOTPFactor(accessToken: "user-jwt", friendlyName: "Phone", issuer: "Example")
        #expect(enrollment.factorID == "f-1")
        #expect(enrollment.friendlyName == "Phone")
        #expect(enrollment.secret == "JBSWY3DPEHPK3PXP")
        #expect(enrollment.uri.hasPrefix("otpauth://totp/"))
        #expect(enrollment.qrCodeSVG.hasPrefix("<svg"))
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.method == "POST")
        #expect(request.url.absoluteString == "https://project.example.co/auth/v1/factors")
        #expect(request.headers["Authorization"] == "Bearer user-jwt")
        #expect(request.headers["apikey"] == "anon-key")
        #expect(try json(request) == ["factor_type": "totp", "friendly_name": "Phone", "issuer": "Example"])
    }

    @Test("An enrollment answer without a TOTP secret is an invalid response")
    func enrollWithoutSecret() async throws {
        let (backend, _) = makeBackend(#"{"id":"f-1","type":"phone","friendly_name":"x"}"#)
        await #expect(throws: BackendError.invalidResponse(reason: "the enrollment carries no TOTP secret")) {
            try await backend.enrollTOTPFactor(accessToken: "t", friendlyName: nil, issuer: nil)
        }
    }

    @Test("Challenge posts to /factors/{id}/challenge and reads id and expires_at")
    func challenge() async throws {
        let (backend, transport) = makeBackend(#"{"id":"c-1","type":"totp","expires_at":1750000300}"#)
        let challenge = try await backend.challengeFactor(accessToken: "user-jwt", factorID: "f-1")
        #expect(challenge == FactorChallenge(id: "c-1", factorID: "f-1", expiresAt: Date(timeIntervalSince1970: 1_750_000_300)))
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.method == "POST")
        #expect(request.url.path == "/auth/v1/factors/f-1/challenge")
        #expect(request.headers["Authorization"] == "Bearer user-jwt")
    }

    @Test("Verify posts challenge_id and code and reads the session")
    func verify() async throws {
        let (backend, transport) = makeBackend(SessionDecodingTests.goTrueSession)
        let session = try await backend.verifyFactor(accessToken: "user-jwt", factorID: "f-1", challengeID: "c-1", code: "123456")
        #expect(session.refreshToken == "r3fr3sh-s3cr3t")
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.url.path == "/auth/v1/factors/f-1/verify")
        #expect(try json(request) == ["challenge_id": "c-1", "code": "123456"])
    }

    @Test("Unenroll sends DELETE /factors/{id}; an id that is not one path segment is refused before sending")
    func unenroll() async throws {
        let (backend, transport) = makeBackend(#"{"id":"f-1"}"#)
        try await backend.unenrollFactor(accessToken: "user-jwt", factorID: "f-1")
        let request = try #require(transport.requests.withLock { $0.first })
        #expect(request.method == "DELETE")
        #expect(request.url.path == "/auth/v1/factors/f-1")
        for bad in ["", "..", "f/../../admin", "f?x=1", "f#x", "f 1"] {
            await #expect(throws: BackendError.self, "\(bad)") { try await backend.unenrollFactor(accessToken: "t", factorID: bad) }
        }
        #expect(transport.requests.withLock { $0.count } == 1)
    }

    @Test("GoTrue's MFA errors become failures in words a user understands")
    func errorWords() async throws {
        let (backend, _) = makeBackend(#"{"code":422,"error_code":"mfa_verification_failed","msg":"Invalid TOTP code entered"}"#, status: 422)
        do {
            _ = try await backend.verifyFactor(accessToken: "t", factorID: "f", challengeID: "c", code: "000000")
            Issue.record("expected a failure")
        } catch let error as BackendError {
            let failure = AuthFailure(error)
            #expect(failure.category == .invalidInput)
            #expect(failure.code == "mfa_verification_failed")
            #expect(failure.presentation.title == "Incorrect Code")
            #expect(!failure.presentation.message.contains("TOTP"), "no jargon from the server")
        }
        func failure(_ status: Int, _ code: String) -> AuthFailure {
            AuthFailure(BackendError.server(status: status, code: code, message: "raw server text", retryAfter: nil))
        }
        #expect(failure(422, "mfa_challenge_expired").category == .invalidInput)
        #expect(failure(422, "mfa_challenge_expired").presentation.title == "Code Expired")
        #expect(failure(404, "mfa_factor_not_found").presentation.title == "Authenticator Not Found")
        #expect(failure(422, "mfa_factor_name_conflict").presentation.message.contains("Choose another name"))
        #expect(failure(422, "too_many_enrolled_mfa_factors").category == .permission)
        #expect(failure(422, "mfa_totp_enroll_not_enabled").category == .permission)
        let aal = failure(403, "insufficient_aal")
        #expect(aal.category == .permission)
        #expect(aal.presentation.action == .verifySecondFactor)
        #expect(aal.presentation.action.label == "Enter Code")
        for code in ["mfa_verification_failed", "mfa_challenge_expired", "insufficient_aal", "mfa_factor_not_found"] {
            #expect(!failure(422, code).presentation.message.contains("raw server text"))
            #expect(
                BackendError.server(status: 422, code: code, message: nil, retryAfter: nil).definitiveSignOutReason == nil,
                "\(code) never ends the session")
        }
    }

    @Test("A backend written before MFA answers it as unsupported")
    func unsupportedByDefault() async throws {
        struct OldBackend: AuthBackend {
            func signUp(email: String, password: String, data: [String: JSONValue]) async throws -> SignUpResult { throw CancellationError() }
            func signIn(email: String, password: String) async throws -> Session { throw CancellationError() }
            func refresh(refreshToken: String) async throws -> Session { throw CancellationError() }
            func signOut(accessToken: String, scope: SignOutScope) async throws {}
            func user(accessToken: String) async throws -> User { throw CancellationError() }
            func updateUser(accessToken: String, _ update: UserUpdate) async throws -> User { throw CancellationError() }
            func resendConfirmation(email: String) async throws {}
            func recoverPassword(email: String) async throws {}
            func verify(type: VerificationType, email: String, token: String) async throws -> Session { throw CancellationError() }
        }
        let old = OldBackend()
        await #expect(throws: BackendError.unsupported("multi-factor authentication")) {
            try await old.enrollTOTPFactor(accessToken: "t", friendlyName: nil, issuer: nil)
        }
        await #expect(throws: BackendError.unsupported("multi-factor authentication")) {
            try await old.challengeFactor(accessToken: "t", factorID: "f")
        }
        await #expect(throws: BackendError.unsupported("multi-factor authentication")) {
            try await old.verifyFactor(accessToken: "t", factorID: "f", challengeID: "c", code: "1")
        }
        await #expect(throws: BackendError.unsupported("multi-factor authentication")) {
            try await old.unenrollFactor(accessToken: "t", factorID: "f")
        }
    }
}
