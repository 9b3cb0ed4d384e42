import CoreMetrics
import Foundation
import NIOConcurrencyHelpers
import Testing

@testable import LatchkeyServer

/// `--metrics-enabled` and the database pool's use in `/metrics`.
@Suite("Metrics switch and pool use")
struct MetricsSettingsTests {
    static let token = OperationsRoutesTests.token

    /// A swift-metrics backend that counts what it is asked to make, and nothing else.
    final class CountingFactory: MetricsFactory {
        private let made = NIOLockedValueBox<[String]>([])
        var labels: [String] { made.withLockedValue { $0 } }

        private func note(_ label: String) { made.withLockedValue { $0.append(label) } }
        func makeCounter(label: String, dimensions: [(String, String)]) -> any CounterHandler {
            note(label)
            return Handler()
        }
        func makeFloatingPointCounter(label: String, dimensions: [(String, String)]) -> any FloatingPointCounterHandler {
            note(label)
            return Handler()
        }
        func makeRecorder(label: String, dimensions: [(String, String)], aggregate: Bool) -> any RecorderHandler {
            note(label)
            return Handler()
        }
        func makeMeter(label: String, dimensions: [(String, String)]) -> any MeterHandler {
            note(label)
            return Handler()
        }
        func makeTimer(label: String, dimensions: [(String, String)]) -> any TimerHandler {
            note(label)
            return Handler()
        }
        func destroyCounter(_ handler: any CounterHandler) {}
        func destroyFloatingPointCounter(_ handler: any FloatingPointCounterHandler) {}
        func destroyRecorder(_ handler: any RecorderHandler) {}
        func destroyMeter(_ handler: any MeterHandler) {}
        func destroyTimer(_ handler: any TimerHandler) {}

        final class Handler: CounterHandler, FloatingPointCounterHandler, RecorderHandler, MeterHandler, TimerHandler {
            func increment(by: Int64) {}
            func increment(by: Double) {}
            func reset() {}
            func record(_ value: Int64) {}
            func record(_ value: Double) {}
            func set(_ value: Int64) {}
            func set(_ value: Double) {}
            func decrement(by: Double) {}
            func recordNanoseconds(_ duration: Int64) {}
        }
    }

    /// A sign-up, a sign-in, a refresh, a recovery mail and a 404.
    static func traffic(_ server: TestServer) async throws {
        #expect(try await server.request(.POST, "/signup", json: ["email": "t@example.com", "password": "correct horse battery"]).status == 200)
        let session = try #require(TestSession(try await server.signIn("t@example.com")))
        #expect(try await server.refresh(session.refreshToken).status == 200)
        #expect(try await server.request(.POST, "/recover", json: ["email": "t@example.com"]).status == 200)
        #expect(try await server.request(.GET, "/nowhere").status == 404)
    }

    @Test("--metrics-enabled false: nothing is recorded (the backend is never asked), /metrics is 404; on, the same traffic is recorded")
    func disabled() async throws {
        let off = CountingFactory()
        try await TestServer.with(metrics: ServerMetrics(factory: off), configure: { $0.metricsEnabled = false }) { server in
            try await Self.traffic(server)
            try await server.request(.GET, "/metrics").expectError(404, "not_found")
            try await server.request(.GET, "/metrics", bearer: Self.token).expectError(404, "not_found")
        }
        #expect(off.labels.isEmpty, "\(off.labels)")

        let on = CountingFactory()
        try await TestServer.with(metrics: ServerMetrics(factory: on)) { server in
            try await Self.traffic(server)
        }
        #expect(on.labels.contains("latchkey_http_requests_total") && on.labels.contains("latchkey_mails_total"))

        var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "/tmp/unused"))
        configuration.metricsEnabled = false
        configuration.metricsToken = Self.token
        #expect(throws: ConfigurationError.self, "a token for metrics that are off is a mistake") { try configuration.validate() }
    }

    @Test("/metrics shows the pool's capacity, uses and busy time, and nothing in use between requests")
    func poolInMetrics() async throws {
        try await TestServer.with(configure: { $0.metricsToken = Self.token }) { server in
            try await Self.traffic(server)
            let text = try await server.request(.GET, "/metrics", bearer: Self.token).text
            func value(_ series: String) -> Double? {
                text.split(separator: "\n").first { $0.hasPrefix(series + " ") }.flatMap { Double($0.split(separator: " ").last ?? "") }
            }
            #expect(value("latchkey_database_connections_max") == 6, "SQLite: GRDB's 5 readers and the writer\n\(text)")
            #expect(value("latchkey_database_connections_in_use") == 0)
            let uses = try #require(value("latchkey_database_connection_uses_total"))
            #expect(uses >= 6, "every store call of the traffic")
            #expect((value("latchkey_database_connection_busy_seconds_total") ?? 0) > 0)
            // Counters grow between readings, by what happened in between.
            #expect(try await server.signIn("t@example.com").status == 200)
            let again = try await server.request(.GET, "/metrics", bearer: Self.token).text
            let later = again.split(separator: "\n").first { $0.hasPrefix("latchkey_database_connection_uses_total ") }
                .flatMap { Double($0.split(separator: " ").last ?? "") }
            #expect((later ?? 0) > uses)
        }
    }

    @Test("each store counts the connections its calls hold", arguments: StoreKind.available)
    func storeCounts(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let usage = try #require(store.poolUsage)
            #expect(kind == .postgres ? usage.capacity >= 1 : usage.capacity == 6, "\(usage.capacity)")
            let before = usage.snapshot
            _ = try await store.user(email: "nobody@example.com")
            async let first = store.user(id: UUID())
            async let second = store.listUsers(offset: 0, limit: 10)
            _ = try await (first, second)
            let after = usage.snapshot
            #expect(after.uses == before.uses + 3)
            #expect(after.inUse == 0)
            #expect(after.busySeconds > before.busySeconds)
        }
    }

    @Test("a connection held is counted while held")
    func heldWhileHeld() async throws {
        let usage = DatabasePoolUsage(capacity: 2)
        let (entered, enteredContinuation) = AsyncStream.makeStream(of: Void.self)
        let (release, releaseContinuation) = AsyncStream.makeStream(of: Void.self)
        let holder = Task {
            await usage.holding {
                enteredContinuation.yield()
                for await _ in release { break }
            }
        }
        for await _ in entered { break }
        #expect(usage.snapshot.inUse == 1)
        releaseContinuation.yield()
        await holder.value
        #expect(usage.snapshot.inUse == 0 && usage.snapshot.uses == 1)
    }
}
