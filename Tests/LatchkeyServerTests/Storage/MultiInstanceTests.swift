import Foundation
import LatchkeyTesting
import Logging
import Testing

@testable import LatchkeyServer

/// Several `latchkey serve` instances on one PostgreSQL database, as behind a load balancer:
/// two real servers on different ports, each with its own pool, sharing the database and the
/// JWT secret. PostgreSQL only: skipped (and shown as skipped) without a test server.
@Suite("Several instances on one PostgreSQL database", .enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
struct MultiInstanceTests {
    static let sharedSecret = String(repeating: "m", count: 48)

    /// Configures an instance of the shared deployment on `url`.
    static func instance(_ url: String) -> (inout ServerConfiguration) -> Void {
        { configuration in
            configuration.databaseURL = url
            configuration.databasePoolSize = 4
            // Generous: on a loaded 2-core CI machine, 50 racing refreshes can queue for the four
            // connections longer than the 5 s production default (the outage tests cover 503s).
            configuration.databaseTimeout = 60
            configuration.jwtSecret = sharedSecret
        }
    }

    /// Runs `body` with two instances on a fresh database, on one (test) clock.
    static func withTwoInstances<T: Sendable>(
        clock: ManualServerClock = ManualServerClock(), _ body: @escaping @Sendable (TestServer, TestServer) async throws -> T
    ) async throws -> T {
        try await PostgresTestDatabase.with { url in
            try await TestServer.with(clock: clock, configure: instance(url)) { a in
                try await TestServer.with(clock: clock, configure: instance(url)) { b in
                    #expect(a.server.port != b.server.port)
                    return try await body(a, b)
                }
            }
        }
    }

    @Test("sign up on one instance, sign in and use the session on the other")
    func signUpHereSignInThere() async throws {
        try await Self.withTwoInstances { a, b in
            let session = try await a.signUp("shared@example.com")
            #expect(try await b.request(.GET, "/user", bearer: session.accessToken).status == 200)
            let signIn = try await b.signIn("shared@example.com")
            #expect(signIn.status == 200)
            #expect(TestSession(signIn)?.userID == session.userID)
            #expect(try await a.signUp("other@example.com").userID != session.userID)
            let duplicate = try await b.request(.POST, "/signup", json: ["email": "shared@example.com", "password": "correct horse battery"])
            #expect(duplicate.status == 422, "the email is taken on every instance")
        }
    }

    @Test("rotate on one instance, reuse the parent on the other: the active session comes back")
    func parentReuseAcrossInstances() async throws {
        try await Self.withTwoInstances { a, b in
            let session = try await a.signUp("parent@example.com")
            let rotated = try #require(TestSession(try await a.refresh(session.refreshToken)))
            a.clock.advance(by: 3600)
            let again = try await b.refresh(session.refreshToken)
            #expect(again.status == 200)
            #expect(TestSession(again)?.refreshToken == rotated.refreshToken)
            #expect(try await b.refresh(rotated.refreshToken).status == 200, "and it rotates on either instance")
        }
    }

    @Test("reuse of an older token past the interval revokes the session on both instances")
    func reuseRevokesEverywhere() async throws {
        try await Self.withTwoInstances { a, b in
            let t0 = try await a.signUp("stolen@example.com").refreshToken
            let t1 = try #require(TestSession(try await a.refresh(t0))).refreshToken
            let active = try #require(TestSession(try await b.refresh(t1)))
            a.clock.advance(by: 11)
            let reused = try await a.refresh(t0)
            reused.expectError(400, "refresh_token_already_used")
            #expect(try await b.refresh(active.refreshToken).errorCode == "refresh_token_not_found")
            #expect(try await a.refresh(active.refreshToken).errorCode == "refresh_token_not_found")
            #expect(try await b.request(.GET, "/user", bearer: active.accessToken).status == 403)
            #expect(try await a.request(.GET, "/user", bearer: active.accessToken).status == 403)
        }
    }

    @Test("50 concurrent refreshes of one token split across both instances: exactly one successor")
    func concurrentRefreshesAcrossInstances() async throws {
        try await Self.withTwoInstances { a, b in
            let session = try await a.signUp("race@example.com")
            let responses = try await withThrowingTaskGroup(of: TestResponse.self) { group in
                for index in 0..<50 {
                    let instance = index.isMultiple(of: 2) ? a : b
                    group.addTask { try await instance.refresh(session.refreshToken) }
                }
                return try await group.reduce(into: [TestResponse]()) { $0.append($1) }
            }
            #expect(responses.allSatisfy { $0.status == 200 }, "no racing client is signed out")
            let tokens = Set(responses.compactMap { TestSession($0)?.refreshToken })
            #expect(tokens.count == 1, "one successor, handed to every caller")
            #expect(try await a.auditActions().filter { $0 == "token_refreshed" }.count == 1)
            #expect(try await b.refresh(try #require(tokens.first)).status == 200)
        }
    }

    @Test("global logout on one instance: the other refuses the access token and the refresh token")
    func logoutSeenEverywhere() async throws {
        try await Self.withTwoInstances { a, b in
            let phone = try await a.signUp("logout@example.com")
            let laptop = try #require(TestSession(try await b.signIn("logout@example.com")))
            #expect(try await b.request(.GET, "/user", bearer: phone.accessToken).status == 200)
            #expect(try await a.request(.POST, "/logout", bearer: phone.accessToken).status == 204)
            for session in [phone, laptop] {
                #expect(try await b.request(.GET, "/user", bearer: session.accessToken).status == 403)
                #expect(try await b.refresh(session.refreshToken).errorCode == "refresh_token_not_found")
            }
        }
    }

    @Test("an instance restarted on the same database loses nothing")
    func restartLosesNothing() async throws {
        try await PostgresTestDatabase.with { url in
            let clock = ManualServerClock()
            let (session, rotated) = try await TestServer.with(clock: clock, configure: Self.instance(url)) { first in
                let session = try await first.signUp("restart@example.com", "persistent password")
                return (session, try #require(TestSession(try await first.refresh(session.refreshToken))))
            }
            try await TestServer.with(clock: clock, configure: Self.instance(url)) { (second: TestServer) async throws -> Void in
                #expect(try await second.request(.GET, "/user", bearer: rotated.accessToken).status == 200)
                #expect(TestSession(try await second.refresh(session.refreshToken))?.refreshToken == rotated.refreshToken)
                #expect(try await second.refresh(rotated.refreshToken).status == 200)
                #expect(try await second.signIn("restart@example.com", "persistent password").status == 200)
                #expect(try await second.auditActions().contains("user_signedup"))
            }
        }
    }

    @Test("instances starting at once migrate the database exactly once")
    func concurrentMigrations() async throws {
        try await PostgresTestDatabase.with { url in
            let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 {
                    group.addTask { _ = try await PostgresAuthStore.connect(url: url, poolSize: 1, logger: logger) }
                }
                try await group.waitForAll()
            }
            let store = try await PostgresAuthStore.connect(url: url, poolSize: 1, logger: logger)
            let pool = Task { try await store.run() }
            defer { pool.cancel() }
            let versions = try await store.autocommit { connection in
                try await connection.query("SELECT version FROM latchkey_schema_migrations", logger: logger).allRows { try $0.decode(String.self) }
            }
            #expect(versions == PostgresMigrations.all.map(\.version))
            try await store.insertUser(UserRecord(email: "m@example.com", passwordHash: nil, createdAt: Date(), updatedAt: Date()), audit: nil)
            #expect(try await store.user(email: "m@example.com") != nil)
        }
    }
}
