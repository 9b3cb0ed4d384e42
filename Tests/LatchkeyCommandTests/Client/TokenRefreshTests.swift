import Foundation
import Testing

/// `latchkey token` refreshes silently, and concurrent runs refresh once.
///
/// The commands run as separate processes on the system clock, so these tests use real token
/// lifetimes: an hour where a token must stay fresh whatever the machine's speed, two seconds
/// where one must expire (the server restarted on the same port and database in between).
@Suite("latchkey token: silent refresh, one refresh across processes")
struct TokenRefreshTests {
    @Test("an expired access token: the next token call refreshes it (one refresh) and prints the new one")
    func expiredTokenRefreshes() async throws {
        var server = try await ClientTestServer.start(port: CommandRunner.freePort(), accessTokenTTL: 3600)
        let shell = ClientSandbox()
        defer { shell.remove() }
        #expect(try await shell.signup(server, email: "exp@example.com", password: "expiry password").status == 0)
        let first = try await shell.token()
        let again = try await shell.token()
        #expect(first == again, "a fresh token is reused, not refreshed")
        #expect(try await server.refreshCount() == 0)

        // A two-second token, expired before the server (back to hour-long tokens) answers again.
        server = try await server.restartedAfterStop(accessTokenTTL: 2)
        #expect(try await shell.login(server, email: "exp@example.com", password: "expiry password").status == 0)
        await waitUntilExpired(issuedBefore: Date(), lifetime: 2)
        server = try await server.restartedAfterStop(accessTokenTTL: 3600)

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
        var server = try await ClientTestServer.start(port: CommandRunner.freePort(), accessTokenTTL: 2)
        let shell = ClientSandbox()
        defer { shell.remove() }
        // (No `token` before the refresh: a two-second token is already due for one.)
        #expect(try await shell.signup(server, email: "many@example.com", password: "concurrency pw").status == 0)
        await waitUntilExpired(issuedBefore: Date(), lifetime: 2)
        #expect(try await server.refreshCount() == 0)
        // The refreshed token lives an hour: no process can find it due and refresh again.
        server = try await server.restartedAfterStop(accessTokenTTL: 3600)

        let runs = try (0..<8).map { _ in try shell.start(["token"]) }
        var tokens: Set<String> = []
        for run in runs {
            #expect(await run.wait(upTo: 120))
            let result = await run.result()
            #expect(result.status == 0, "\(result.stderr)")
            tokens.insert(result.stdout.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        #expect(tokens.count == 1, "every process printed the same fresh token")
        #expect(try await server.userStatus(accessToken: try #require(tokens.first)) == 200)
        #expect(try await server.refreshCount() == 1, "exactly one refresh reached the server")
        #expect(try await shell.run(["whoami"]).status == 0, "and the session is intact")
        await server.discard()
    }
}

/// Waits until a token issued before `issuedBefore` with `lifetime` seconds has expired by the
/// system clock (plus half a second for the server's whole-second `exp`).
func waitUntilExpired(issuedBefore: Date, lifetime: TimeInterval) async {
    let expired = issuedBefore.addingTimeInterval(lifetime + 0.5)
    while Date() < expired { try? await Task.sleep(for: .milliseconds(100)) }
}
