import Foundation
import LatchkeyTesting
import Logging
import Testing

@testable import LatchkeyServer

/// ``PostgresRateLimitCounter`` against a real database: it answers what
/// ``InMemoryRateLimitCounter`` answers, counts concurrent requests from several pools one at a
/// time, stores no address, and its expired windows go with the cleanup.
@Suite("Rate limits counted in PostgreSQL", .enabled(if: PostgresTestDatabase.isAvailable, PostgresTestDatabase.skipReason))
struct PostgresRateLimitCounterTests {
    static let secret = String(repeating: "r", count: 48)
    /// A start off the whole second, as a real clock's.
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000.123_456_7)

    /// Runs `body` with `count` stores (each its own pool, as instances have) on one fresh database.
    static func withStores<T>(_ count: Int = 1, _ body: ([PostgresAuthStore]) async throws -> T) async throws -> T {
        try await PostgresTestDatabase.with { url in
            var stores: [PostgresAuthStore] = []
            var pools: [Task<Void, any Error>] = []
            defer { for pool in pools { pool.cancel() } }
            for _ in 0..<count {
                let store = try await PostgresAuthStore.connect(
                    url: url, poolSize: 4, timeout: 60, logger: Logger(label: "test.postgres", factory: { _ in SwiftLogNoOpLogHandler() }))
                stores.append(store)
                pools.append(Task { try await store.run() })
            }
            let result = try await body(stores)
            for pool in pools {
                pool.cancel()
                _ = await pool.result
            }
            return result
        }
    }

    /// One step of a script both counters run.
    enum Step {
        case consume(String, count: Int, window: TimeInterval, interval: TimeInterval = 0, at: TimeInterval)
        case check(String, count: Int, window: TimeInterval, at: TimeInterval)
        case record(String, count: Int, window: TimeInterval, at: TimeInterval)
        case unrecord(String, at: TimeInterval)
        case reset(String)
    }

    /// What each step answered (`nil`: allowed, a number: the Retry-After; `-` for steps without an answer).
    static func run(_ steps: [Step], on counter: any RateLimitCounter) async throws -> [String] {
        var answers: [String] = []
        for step in steps {
            switch step {
            case .consume(let key, let count, let window, let interval, let at):
                let answer = try await counter.consume(
                    key, limit: .init(count: count, per: window), minimumInterval: interval, at: t0.addingTimeInterval(at))
                answers.append(answer.map(String.init) ?? "allowed")
            case .check(let key, let count, let window, let at):
                let answer = try await counter.check(key, limit: .init(count: count, per: window), at: t0.addingTimeInterval(at))
                answers.append(answer.map(String.init) ?? "allowed")
            case .record(let key, let count, let window, let at):
                try await counter.record(key, limit: .init(count: count, per: window), at: t0.addingTimeInterval(at))
                answers.append("-")
            case .unrecord(let key, let at):
                try await counter.unrecord(key, at: t0.addingTimeInterval(at))
                answers.append("-")
            case .reset(let key):
                try await counter.reset(key)
                answers.append("-")
            }
        }
        return answers
    }

    @Test("the application counts in the database on PostgreSQL, in the process on SQLite")
    func chosenWithTheStore() async throws {
        try await Self.withStores { stores in
            #expect(LatchkeyApplication.rateLimitCounter(for: stores[0], jwtSecret: Self.secret) is PostgresRateLimitCounter)
        }
        try await StoreKind.sqlite.withStore { store in
            #expect(LatchkeyApplication.rateLimitCounter(for: store, jwtSecret: Self.secret) is InMemoryRateLimitCounter)
        }
    }

    @Test("every answer, Retry-After included, is the one the in-process counter gives")
    func sameAnswersAsInProcess() async throws {
        let ip = "signin-ip:203.0.113.7"
        let mail = "email:recovery:someone@example.com"
        let password = "failed-password:someone@example.com"
        let steps: [Step] = [
            // No step falls on a window's or an interval's exact edge: there the two differ by the
            // database's rounding to the microsecond.
            // Three per 300 s: the fourth waits for the oldest to leave the window.
            .consume(ip, count: 3, window: 300, at: 0), .consume(ip, count: 3, window: 300, at: 10.5),
            .consume(ip, count: 3, window: 300, at: 20), .consume(ip, count: 3, window: 300, at: 30),
            .consume(ip, count: 3, window: 300, at: 299.75), .consume(ip, count: 3, window: 300, at: 300.25),
            .consume(ip, count: 3, window: 300, at: 301), .consume(ip, count: 3, window: 300, at: 310.6),
            // Emails: one a minute, five an hour; a released slot frees the address at once.
            .consume(mail, count: 5, window: 3600, interval: 60, at: 0), .consume(mail, count: 5, window: 3600, interval: 60, at: 59.5),
            .consume(mail, count: 5, window: 3600, interval: 60, at: 60.5), .unrecord(mail, at: 60.5),
            .consume(mail, count: 5, window: 3600, interval: 60, at: 61), .consume(mail, count: 5, window: 3600, interval: 60, at: 200),
            .consume(mail, count: 5, window: 3600, interval: 60, at: 300), .consume(mail, count: 5, window: 3600, interval: 60, at: 400),
            .consume(mail, count: 5, window: 3600, interval: 60, at: 500), .consume(mail, count: 5, window: 3600, interval: 60, at: 3599),
            .consume(mail, count: 5, window: 3600, interval: 60, at: 3661.5),
            // Failed passwords: checked, recorded, forgotten after a success.
            .check(password, count: 2, window: 300, at: 0), .record(password, count: 2, window: 300, at: 1),
            .check(password, count: 2, window: 300, at: 2), .record(password, count: 2, window: 300, at: 3),
            .check(password, count: 2, window: 300, at: 4), .check(password, count: 2, window: 300, at: 301.5),
            .check(password, count: 2, window: 300, at: 303.5), .record(password, count: 2, window: 300, at: 304),
            .record(password, count: 2, window: 300, at: 305), .check(password, count: 2, window: 300, at: 306),
            .reset(password), .check(password, count: 2, window: 300, at: 307),
            .unrecord("unknown", at: 0), .reset("unknown"), .check("unknown", count: 1, window: 60, at: 0),
        ]
        let expected = try await Self.run(steps, on: InMemoryRateLimitCounter())
        #expect(expected.contains("270") && expected.contains("3100") && expected.contains("allowed"), "the script exercises refusals: \(expected)")
        let shared = try await Self.withStores { stores in
            try await Self.run(steps, on: PostgresRateLimitCounter(store: stores[0], jwtSecret: Self.secret))
        }
        #expect(shared == expected)
    }

    @Test("concurrent requests on two instances' pools take exactly the limit's places")
    func concurrentConsumes() async throws {
        try await Self.withStores(2) { stores in
            let counters = stores.map { PostgresRateLimitCounter(store: $0, jwtSecret: Self.secret) }
            let allowed = try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<40 {
                    let counter = counters[index % 2]
                    group.addTask {
                        try await counter.consume(
                            "signin-ip:198.51.100.1", limit: .init(count: 7, per: 300), minimumInterval: 0,
                            at: Self.t0.addingTimeInterval(Double(index) / 1000)) == nil
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 1 : 0) }
            }
            #expect(allowed == 7)
        }
    }

    @Test("stored keys are a kind and an HMAC: no address, no IP, the same on every instance")
    func keysAreHashed() async throws {
        try await Self.withStores(2) { stores in
            let a = PostgresRateLimitCounter(store: stores[0], jwtSecret: Self.secret)
            let b = PostgresRateLimitCounter(store: stores[1], jwtSecret: Self.secret)
            #expect(a.storedKey("email:signup:someone@example.com") == b.storedKey("email:signup:someone@example.com"))
            #expect(a.storedKey("email:signup:someone@example.com") != a.storedKey("email:signup:someone@example.org"))
            #expect(
                a.storedKey("email:signup:someone@example.com")
                    != PostgresRateLimitCounter(store: stores[0], jwtSecret: String(repeating: "o", count: 48))
                    .storedKey("email:signup:someone@example.com"),
                "keyed by the secret")
            let limit = RateLimitConfiguration.Limit(count: 5, per: 300)
            _ = try await a.consume("email:signup:someone@example.com", limit: limit, minimumInterval: 60, at: Self.t0)
            _ = try await a.consume("signin-ip:203.0.113.9", limit: limit, minimumInterval: 0, at: Self.t0)
            try await b.record("failed-password:someone@example.com", limit: limit, at: Self.t0)
            let keys = try await stores[0].autocommit { connection in
                try await connection.query("SELECT key FROM rate_limit_counters ORDER BY key", logger: stores[0].logger)
                    .allRows { try $0.decode(String.self) }
            }
            #expect(keys.count == 3)
            #expect(keys.map { $0.split(separator: ":").first.map(String.init) } == ["email", "failed-password", "signin-ip"])
            for key in keys {
                #expect(!key.contains("@") && !key.contains("example") && !key.contains("203.0.113.9"), "\(key)")
                #expect(key.split(separator: ":").last?.count == 64, "an HMAC-SHA-256, in hex: \(key)")
            }
        }
    }

    @Test("the cleanup deletes counters once their newest event has left the window, and nothing sooner")
    func cleanupDeletesExpiredWindows() async throws {
        try await Self.withStores { stores in
            let store = stores[0]
            let counter = PostgresRateLimitCounter(store: store, jwtSecret: Self.secret)
            let limit = RateLimitConfiguration.Limit(count: 1, per: 300)
            #expect(try await counter.consume("refresh:old", limit: limit, minimumInterval: 0, at: Self.t0) == nil)
            #expect(try await counter.consume("refresh:new", limit: limit, minimumInterval: 0, at: Self.t0.addingTimeInterval(100)) == nil)
            func cutoffs(at offset: TimeInterval) -> StaleRowCutoffs {
                StorageCleanup(
                    store: store, clock: ManualServerClock(Self.t0),
                    settings: .init(
                        refreshTokenRetention: 86_400, auditRetention: 86_400, sessionInactivityTimeout: nil, oneTimeTokenLifetime: 86_400)
                ).cutoffs(at: Self.t0.addingTimeInterval(offset))
            }
            #expect(try await store.deleteStaleRows(cutoffs(at: 299), limit: 10).rateLimitCounters == 0, "both windows still count")
            #expect(try await counter.consume("refresh:old", limit: limit, minimumInterval: 0, at: Self.t0.addingTimeInterval(299)) != nil)
            let counts = try await store.deleteStaleRows(cutoffs(at: 301), limit: 10)
            #expect(counts.rateLimitCounters == 1, "the old key's window has passed; the new one's has not")
            #expect(counts.total == counts.rateLimitCounters)
            #expect(try await counter.consume("refresh:new", limit: limit, minimumInterval: 0, at: Self.t0.addingTimeInterval(301)) != nil)
            #expect(try await counter.consume("refresh:old", limit: limit, minimumInterval: 0, at: Self.t0.addingTimeInterval(301)) == nil)
            #expect(try await store.deleteStaleRows(cutoffs(at: 10_000), limit: 10).rateLimitCounters == 2)
        }
    }
}
