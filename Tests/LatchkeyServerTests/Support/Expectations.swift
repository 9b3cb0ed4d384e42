import Foundation
import Testing

/// Checks that many tests make.
extension TestResponse {
    /// Expects GoTrue's error `code` with HTTP `status`.
    func expectError(_ status: Int, _ code: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(self.status == status, sourceLocation: sourceLocation)
        #expect(errorCode == code, sourceLocation: sourceLocation)
    }
}

extension TestServer {
    /// Whether `session`'s access token still reads `GET /user`.
    func isAlive(_ session: TestSession) async throws -> Bool {
        try await request(.GET, "/user", bearer: session.accessToken).status == 200
    }

    /// Expects each of `sessions` ended: its access token refused (403) and its refresh token
    /// answered `refresh_token_not_found` (GoTrue's answer once a session ended).
    func expectEnded(_ sessions: [TestSession], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        for session in sessions {
            #expect(try await request(.GET, "/user", bearer: session.accessToken).status == 403, sourceLocation: sourceLocation)
            #expect(try await refresh(session.refreshToken).errorCode == "refresh_token_not_found", sourceLocation: sourceLocation)
        }
    }
}
