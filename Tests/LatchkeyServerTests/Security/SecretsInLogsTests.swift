import Foundation
import LatchkeyTesting
import Logging
import Testing

@testable import LatchkeyServer

/// Nothing secret reaches the logs: run a whole session's life at trace level and search
/// every line for the password, the tokens and the email address.
@Suite("Secrets never logged")
struct SecretsInLogsTests {
    @Test("a full session lifecycle at trace level logs no password, token or email")
    func noSecrets() async throws {
        let capture = LogCapture()
        let logger = capture.logger(label: "latchkey")
        let password = "very secret password 9"
        try await TestServer.with(logger: logger, configure: { $0.autoconfirm = false }) { server in
            _ = try await server.request(.POST, "/signup", json: ["email": "logged@example.com", "password": password])
            let link = try server.linkToken(to: "logged@example.com", type: "signup")
            _ = try await server.request(.GET, "/verify?token=\(link)&type=signup")
            let session = try #require(TestSession(try await server.signIn("logged@example.com", password)))
            _ = try await server.signIn("logged@example.com", "wrong password here")
            let rotated = try #require(TestSession(try await server.refresh(session.refreshToken)))
            _ = try await server.request(.GET, "/user", bearer: rotated.accessToken)
            server.clock.advance(by: 30)
            _ = try await server.refresh("\(session.refreshToken)")
            // MFA: the TOTP secret, its URI and the codes stay out of the logs.
            let enrolled = try await server.request(.POST, "/factors", json: ["factor_type": "totp"], bearer: rotated.accessToken)
            let totp = try #require(enrolled["totp"] as? [String: Any])
            let factorSecret = try #require(totp["secret"] as? String)
            let factorID = try #require(enrolled["id"] as? String)
            let challenge = try await server.request(.POST, "/factors/\(factorID)/challenge", bearer: rotated.accessToken)
            let challengeID = try #require(challenge["id"] as? String)
            let code = TOTP.code(secret: Base32.decode(factorSecret) ?? [], step: TOTP.step(at: server.clock.now()))
            let wrongCode = code == "000000" ? "000001" : "000000"
            for attempt in [wrongCode, code] {
                _ = try await server.request(
                    .POST, "/factors/\(factorID)/verify", json: ["challenge_id": challengeID, "code": attempt], bearer: rotated.accessToken)
            }
            _ = try await server.request(.POST, "/recover", json: ["email": "logged@example.com"])
            _ = try await server.request(.POST, "/logout", bearer: rotated.accessToken)
            let lines = capture.lines
            #expect(lines.count > 5, "the lifecycle was logged")
            for secret in [
                password, "wrong password here", session.refreshToken, rotated.refreshToken, session.accessToken, rotated.accessToken, link,
                "logged@example.com", factorSecret, code, wrongCode,
            ] {
                #expect(!lines.contains { $0.contains(secret) }, "a log line contains a secret")
            }
        }
    }
}
