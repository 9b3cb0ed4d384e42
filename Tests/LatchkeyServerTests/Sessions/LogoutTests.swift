import Foundation
import Testing

@testable import LatchkeyServer

/// `POST /logout` with its three scopes.
@Suite("Logout scopes")
struct LogoutTests {
    /// Signs in three times: three sessions of one user.
    func threeSessions(_ server: TestServer, _ email: String) async throws -> [TestSession] {
        try await server.signUp(email)
        var sessions: [TestSession] = []
        for _ in 0..<3 { sessions.append(try #require(TestSession(try await server.signIn(email)))) }
        return sessions
    }

    @Test("global (the default) ends every session of the user")
    func global() async throws {
        try await TestServer.with { server in
            let sessions = try await threeSessions(server, "global@example.com")
            #expect(try await server.request(.POST, "/logout", bearer: sessions[0].accessToken).status == 204)
            try await server.expectEnded(sessions)
            #expect(try await server.auditActions().contains("logout"))
        }
    }

    @Test("local ends only the current session")
    func local() async throws {
        try await TestServer.with { server in
            let sessions = try await threeSessions(server, "local@example.com")
            #expect(try await server.request(.POST, "/logout?scope=local", bearer: sessions[0].accessToken).status == 204)
            #expect(try await !server.isAlive(sessions[0]))
            #expect(try await server.isAlive(sessions[1]))
            #expect(try await server.isAlive(sessions[2]))
        }
    }

    @Test("others ends every session but the current one")
    func others() async throws {
        try await TestServer.with { server in
            let sessions = try await threeSessions(server, "others@example.com")
            #expect(try await server.request(.POST, "/logout?scope=others", bearer: sessions[0].accessToken).status == 204)
            #expect(try await server.isAlive(sessions[0]))
            #expect(try await !server.isAlive(sessions[1]))
            #expect(try await !server.isAlive(sessions[2]))
        }
    }

    @Test("a bad scope is a 400 and ends nothing; no token is a 401")
    func badScope() async throws {
        try await TestServer.with { server in
            let session = try await server.signUp("scope@example.com")
            let bad = try await server.request(.POST, "/logout?scope=everything", bearer: session.accessToken)
            bad.expectError(400, "validation_failed")
            #expect(try await server.isAlive(session))
            let anonymous = try await server.request(.POST, "/logout")
            anonymous.expectError(401, "no_authorization")
        }
    }

    @Test("a session ended by logout cannot be used to log out others")
    func endedSessionCannotAct() async throws {
        try await TestServer.with { server in
            let sessions = try await threeSessions(server, "ended-act@example.com")
            #expect(try await server.request(.POST, "/logout?scope=local", bearer: sessions[0].accessToken).status == 204)
            let again = try await server.request(.POST, "/logout?scope=others", bearer: sessions[0].accessToken)
            #expect(again.status == 403)
            #expect(try await server.isAlive(sessions[1]))
        }
    }
}
