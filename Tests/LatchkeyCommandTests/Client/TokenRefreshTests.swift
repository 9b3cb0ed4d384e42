import Foundation
import Testing

/// `latchkey token` refreshes silently, and concurrent runs refresh once.
///
/// These tests wait for a real 30-second access token (the server's minimum lifetime) to
/// expire, since the commands run as separate processes on the system clock.
@Suite("latchkey token: silent refresh, one refresh across processes")
struct TokenRefreshTests {
    static let lifetime: TimeInterval = 30

    @Test("an expired access token: the next token call refreshes it (one refresh) and prints the new one")
    func expiredTokenRefreshes() async throws {
        let server = try await ClientTestServer.start(accessTokenTTL: Self.lifetime)
        let shell = ClientSandbox()
        defer { shell.remove() }
        #expect(try await shell.signup(server, email: "exp@example.com", password: "expiry password").status == 0)
        let first = try await shell.token()
        let again = try await shell.token()
        #expect(first == again, "a fresh token is reused, not refreshed")
        #expect(try await server.refreshCount() == 0)

        try await Task.sleep(for: .seconds(Self.lifetime + 1.5))
        let status = try await shell.run(["status"])
        #expect(status.status == 0, "signed in with an expired access token: \(status.stderr)")

        let refreshed = try await shell.token()
        #expect(refreshed != first)
        #expect(try await server.userStatus(accessToken: refreshed) == 200)
        #expect(try await server.refreshCount() == 1, "status refreshed once, token reused that")
        #expect(try await shell.token() == refreshed)
        await server.discard()
    }

    @Test("8 concurrent token calls with an expired token: one refresh reaches the server, all print the same token")
    func concurrentTokenCallsRefreshOnce() async throws {
        let server = try await ClientTestServer.start(accessTokenTTL: Self.lifetime)
        let shell = ClientSandbox()
        defer { shell.remove() }
        #expect(try await shell.signup(server, email: "many@example.com", password: "concurrency pw").status == 0)
        let stale = try await shell.token()
        try await Task.sleep(for: .seconds(Self.lifetime + 1.5))

        let runs = try (0..<8).map { _ in try shell.start(["token"]) }
        var tokens: Set<String> = []
        for run in runs {
            #expect(await run.wait(upTo: 60))
            let result = await run.result()
            #expect(result.status == 0, "\(result.stderr)")
            tokens.insert(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(tokens.count == 1, "every process printed the same fresh token")
        #expect(!tokens.contains(stale))
        #expect(try await server.refreshCount() == 1, "exactly one refresh reached the server")
        #expect(try await shell.run(["whoami"]).status == 0, "and the session is intact")
        await server.discard()
    }
}
