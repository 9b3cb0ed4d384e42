import Foundation
import Latchkey
import LatchkeyServer
import LatchkeyTesting
import Logging
import Testing

@Suite("TestAuthServer")
struct TestAuthServerTests {
    @Test("the README example: sign up, let the token expire on both clocks, one real refresh")
    func readmeExample() async throws {
        let serverClock = ManualServerClock()
        let appClock = ManualSessionClock(Date())
        try await TestAuthServer.with(clock: serverClock, configure: { $0.accessTokenTTL = 60 }) { server in
            let manager = SessionManager(backend: server.backend(), store: MemoryCredentialStore(), clock: appClock)
            let result = try await manager.account.signUp(email: "ada@example.com", password: "correct horse battery")
            guard case .signedIn(let first) = result else {
                Issue.record("sign-up was not confirmed at once: \(result)")
                return
            }
            serverClock.advance(by: 120)
            appClock.advance(by: 120)
            let refreshed = try await manager.session()
            #expect(refreshed.refreshToken != first.refreshToken)
            #expect(!refreshed.isExpired(at: appClock.now()))
            let refreshes = try await server.auditActions().filter { $0 == "token_refreshed" }.count
            #expect(refreshes == 1)
        }
    }

    @Test("emails land in the outbox; linkToken, emailCode and followLink find what they carry")
    func outboxAndLinks() async throws {
        try await TestAuthServer.with(configure: {
            $0.autoconfirm = false
            $0.siteURL = "https://app.example.com"
        }) { server in
            let manager = SessionManager(backend: server.backend(), store: MemoryCredentialStore())
            let result = try await manager.account.signUp(email: "grace@example.com", password: "correct horse battery")
            guard case .confirmationRequired = result else {
                Issue.record("expected a confirmation to be required: \(result)")
                return
            }
            #expect(try server.outbox().count == 1)
            let token = try server.linkToken(to: "grace@example.com", type: "signup")
            #expect(!token.isEmpty)
            let code = try server.emailCode(to: "grace@example.com")
            #expect(code.count == 6)
            let verified = try await manager.email.verify(type: .signup, email: "grace@example.com", token: code)
            #expect(verified.user.isEmailConfirmed)
            try await manager.email.recoverPassword(email: "grace@example.com")
            let landing = try await server.followLink(to: "grace@example.com", type: "recovery")
            #expect(landing.host == "app.example.com" && landing.fragment?.contains("access_token=") == true, "the link signs in: \(landing)")
            #expect(throws: TestServerError.self) { try server.linkToken(to: "nobody@example.com", type: "signup") }
        }
    }

    @Test("a server started again on the same data directory and port is the same server")
    func restartKeepsData() async throws {
        // A port reserved for this process, from outside the ephemeral range: one the kernel
        // picked could be handed to another test's connection while the server is stopped.
        let first = try await TestAuthServer.start(port: try TestAuthServer.restartablePort())
        let manager = SessionManager(backend: first.backend(), store: MemoryCredentialStore())
        _ = try await manager.account.signUp(email: "kept@example.com", password: "correct horse battery")
        try await first.stop()
        #expect(FileManager.default.fileExists(atPath: first.dataDirectory.path), "stop keeps the data")

        let second = try await first.restart()
        #expect(second.port == first.port && second.dataDirectory == first.dataDirectory)
        let listed = try await second.admin("GET", "admin/users", bearer: first.serviceRoleKey).status
        #expect(listed == 200, "the same secret: the first server's key works on the second")
        let again = SessionManager(backend: second.backend(), store: MemoryCredentialStore())
        let session = try await again.account.signIn(email: "kept@example.com", password: "correct horse battery")
        #expect(session.user.email == "kept@example.com")
        try await second.shutdown()
        try? FileManager.default.removeItem(at: first.dataDirectory)
    }

    @Test("shutdown removes the temporary data directory it made")
    func shutdownRemovesData() async throws {
        let server = try await TestAuthServer.start()
        #expect(FileManager.default.fileExists(atPath: server.dataDirectory.path))
        try await server.shutdown()
        #expect(!FileManager.default.fileExists(atPath: server.dataDirectory.path))
    }

    @Test("admin calls carry the service_role key; a user's token is refused")
    func adminKey() async throws {
        try await TestAuthServer.with { server in
            let allowed = try await server.admin("GET", "admin/users").status
            #expect(allowed == 200)
            let refused = try await server.admin("GET", "admin/users", bearer: server.anonKey).status
            #expect(refused == 403)
        }
    }
}

@Suite("Manual clocks and log capture")
struct ClockAndLogTests {
    @Test("advancing a ManualSessionClock wakes the sleepers that are due, in deadline order")
    func sessionClockWakesInOrder() async throws {
        let clock = ManualSessionClock(Date(timeIntervalSince1970: 0))
        let woke = LockedList()
        let late = Task {
            try await clock.sleep(until: Date(timeIntervalSince1970: 20))
            woke.append(20)
        }
        let early = Task {
            try await clock.sleep(until: Date(timeIntervalSince1970: 10))
            woke.append(10)
        }
        while clock.sleeperCount < 2 { await Task.yield() }
        clock.advance(by: 15)
        try await early.value
        #expect(woke.values == [10])
        #expect(clock.sleeperCount == 1)
        clock.advance(by: 5)
        try await late.value
        #expect(woke.values == [10, 20])
    }

    @Test("a cancelled sleeper throws CancellationError and leaves the clock")
    func cancelledSleeper() async throws {
        let clock = ManualSessionClock()
        let sleeper = Task { try await clock.sleep(until: clock.now().addingTimeInterval(60)) }
        while clock.sleeperCount < 1 { await Task.yield() }
        sleeper.cancel()
        await #expect(throws: CancellationError.self) { try await sleeper.value }
        #expect(clock.sleeperCount == 0)
    }

    @Test("ManualServerClock moves only when told to")
    func serverClock() {
        let start = Date(timeIntervalSince1970: 1_000)
        let clock = ManualServerClock(start)
        #expect(clock.now() == start)
        clock.advance(by: 30)
        #expect(clock.now() == start.addingTimeInterval(30))
        clock.advance(by: -10)
        #expect(clock.now() == start.addingTimeInterval(20))
    }

    @Test("LogCapture keeps message and metadata of every level")
    func logCapture() {
        let capture = LogCapture()
        var logger = capture.logger
        logger[metadataKey: "request"] = "r1"
        logger.trace("tracing", metadata: ["step": "1"])
        logger.error("failed")
        #expect(capture.lines == ["trace tracing request=r1 step=1", "error failed request=r1"])
        capture.clear()
        #expect(capture.lines.isEmpty)
    }
}

/// Integers appended from several tasks.
final class LockedList: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Int] = []
    func append(_ value: Int) { lock.withLock { storage.append(value) } }
    var values: [Int] { lock.withLock { storage } }
}
