import Foundation
import Logging
import Synchronization
import Testing
@testable import LatchkeyServer

/// Nothing secret reaches the logs: run a whole session's life at trace level and search
/// every line for the password, the tokens and the email address.
@Suite("Secrets never logged")
struct SecretsInLogsTests {
    final class Recorder: Sendable {
        let lines = Mutex<[String]>([])
        func handler(label: String) -> any LogHandler { RecordingHandler(recorder: self) }
    }

    struct RecordingHandler: LogHandler {
        let recorder: Recorder
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .trace
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let all = metadata.merging(event.metadata ?? [:]) { $1 }
            recorder.lines.withLock { $0.append("\(event.level) \(event.message) \(all)") }
        }
    }

    @Test("a full session lifecycle at trace level logs no password, token or email")
    func noSecrets() async throws {
        let recorder = Recorder()
        var logger = Logger(label: "latchkey", factory: recorder.handler)
        logger.logLevel = .trace
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
            _ = try await server.request(.POST, "/recover", json: ["email": "logged@example.com"])
            _ = try await server.request(.POST, "/logout", bearer: rotated.accessToken)
            let lines = recorder.lines.withLock { $0 }
            #expect(lines.count > 5, "the lifecycle was logged")
            for secret in [password, "wrong password here", session.refreshToken, rotated.refreshToken, session.accessToken, rotated.accessToken, link, "logged@example.com"] {
                #expect(!lines.contains { $0.contains(secret) }, "a log line contains a secret")
            }
        }
    }
}
