import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// The client benchmark, against the in-process server on loopback. Skipped unless
/// `LATCHKEY_BENCHMARK=1`; run it with `Benchmarks/client.sh` (release build).
///
/// Prints `BENCH name key=value…` lines and, if `LATCHKEY_BENCHMARK_OUTPUT` names a file,
/// appends them there.
@Suite(
    "Client benchmarks", .serialized,
    .enabled(if: ProcessInfo.processInfo.environment["LATCHKEY_BENCHMARK"] == "1", "set LATCHKEY_BENCHMARK=1"))
struct ClientBenchmarks {
    static let iterations = Int(ProcessInfo.processInfo.environment["LATCHKEY_BENCHMARK_ITERATIONS"] ?? "") ?? 1000

    static func report(_ name: String, _ values: [String: String]) {
        let line = "BENCH \(name) " + values.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        print(line)
        if let path = ProcessInfo.processInfo.environment["LATCHKEY_BENCHMARK_OUTPUT"] {
            if !FileManager.default.fileExists(atPath: path) {
                _ = FileManager.default.createFile(atPath: path, contents: nil)
            }
            guard let handle = FileHandle(forWritingAtPath: path) else { return }
            handle.seekToEndOfFile()
            handle.write(Data((line + "\n").utf8))
            try? handle.close()
        }
    }

    /// p50 and p99 of `samples` (nanoseconds) in milliseconds, 3 decimals.
    static func percentiles(_ samples: [UInt64]) -> [String: String] {
        let sorted = samples.sorted()
        func at(_ fraction: Double) -> String {
            let index = min(sorted.count - 1, Int((Double(sorted.count) * fraction).rounded(.up)) - 1)
            return String(format: "%.3fms", Double(sorted[max(0, index)]) / 1e6)
        }
        return ["p50": at(0.50), "p99": at(0.99), "max": at(1.0), "n": "\(sorted.count)"]
    }

    static func time<T>(_ body: () async throws -> T) async rethrows -> (T, UInt64) {
        let start = DispatchTime.now().uptimeNanoseconds
        let value = try await body()
        return (value, DispatchTime.now().uptimeNanoseconds - start)
    }

    /// An app whose store is an encrypted file (the Linux default), one new manager per launch.
    static func app(
        _ server: TestServer, directory: URL, configure: @escaping @Sendable (inout SessionManagerConfiguration) -> Void = { _ in }
    ) -> E2EApp {
        let store = EncryptedFileCredentialStore(directory: directory, keySource: .keyFile(directory.appendingPathComponent(".key")))
        return E2EApp(server: server, store: store, configure: configure)
    }

    /// A fresh store instance per launch, as a new process would have (the key is read again).
    static func coldLaunch(_ app: E2EApp, directory: URL) -> SessionManager {
        var configuration = SessionManagerConfiguration()
        configuration.automaticRefresh = false
        return SessionManager(
            backend: app.server.backend(transport: app.transport),
            store: EncryptedFileCredentialStore(directory: directory, keySource: .keyFile(directory.appendingPathComponent(".key"))),
            configuration: configuration, installMarker: app.marker, clock: app.clock, logger: .quiet)
    }

    @Test("restore() with a valid stored session (no network)")
    func restoreValid() async throws {
        try await withTestServer { server in
            let directory = temporaryDirectory("bench-valid")
            defer { removeDirectory(directory) }
            let app = Self.app(server, directory: directory)
            _ = try await app.signUp()
            let requests = app.transport.total
            var samples: [UInt64] = []
            for index in 0..<(Self.iterations + 50) {
                let manager = Self.coldLaunch(app, directory: directory)
                let (state, elapsed) = await Self.time { await manager.restore() }
                #expect(state.isSignedIn)
                if index >= 50 { samples.append(elapsed) }  // warm-up
            }
            #expect(app.transport.total == requests, "no network on the launch path")
            Self.report("restore.valid_session", Self.percentiles(samples).merging(["store": "encrypted-file"], uniquingKeysWith: { $1 }))
        }
    }

    @Test("restore() from memory, and its parts: reading the stored record, a new manager")
    func restoreParts() async throws {
        try await withTestServer { server in
            let directory = temporaryDirectory("bench-parts")
            defer { removeDirectory(directory) }
            let app = Self.app(server, directory: directory)
            _ = try await app.signUp()
            let bytes = try #require(try await app.store.load(key: SessionManagerConfiguration().storageKey))
            let memory = MemoryCredentialStore()
            try await memory.save(bytes, key: SessionManagerConfiguration().storageKey)
            let backend = app.server.backend(transport: app.transport)
            var configuration = SessionManagerConfiguration()
            configuration.automaticRefresh = false
            var decode: [UInt64] = []
            var create: [UInt64] = []
            var restore: [UInt64] = []
            for index in 0..<(Self.iterations + 50) {
                let (_, decoding) = try await Self.time { try StoredSession.decode(bytes) }
                let (manager, creating) = await Self.time {
                    SessionManager(backend: backend, store: memory, configuration: configuration, clock: app.clock, logger: .quiet)
                }
                let (state, restoring) = await Self.time { await manager.restore() }
                #expect(state.isSignedIn)
                if index >= 50 {
                    decode.append(decoding)
                    create.append(creating)
                    restore.append(restoring)
                }
            }
            Self.report("restore.memory_store", Self.percentiles(restore))
            Self.report("restore.part.decode_stored_session", Self.percentiles(decode).merging(["bytes": "\(bytes.count)"], uniquingKeysWith: { $1 }))
            Self.report("restore.part.new_manager", Self.percentiles(create))
        }
    }

    @Test("restore() with an expired access token (one loopback refresh)")
    func restoreExpired() async throws {
        try await withTestServer { server in
            let directory = temporaryDirectory("bench-expired")
            defer { removeDirectory(directory) }
            let app = Self.app(server, directory: directory)
            _ = try await app.signUp()
            let count = max(50, Self.iterations / 4)
            var samples: [UInt64] = []
            for index in 0..<(count + 20) {
                app.clock.advance(by: 2 * 3600)
                let manager = Self.coldLaunch(app, directory: directory)
                let (state, elapsed) = await Self.time { await manager.restore() }
                #expect(state.isSignedIn)
                if index >= 20 { samples.append(elapsed) }
            }
            #expect(try await server.refreshCount() == count + 20, "exactly one refresh per launch")
            Self.report("restore.expired_access_token", Self.percentiles(samples).merging(["store": "encrypted-file"], uniquingKeysWith: { $1 }))
        }
    }

    @Test("Refresh requests reaching the server for 1,000 concurrent callers")
    func concurrentCallers() async throws {
        try await withTestServer { server in
            let directory = temporaryDirectory("bench-concurrent")
            defer { removeDirectory(directory) }
            let app = Self.app(server, directory: directory) { $0.automaticRefresh = false }
            let (manager, _) = try await app.signUp()
            app.clock.advance(by: 3600 - 30)
            let before = try await server.refreshCount()
            let (tokens, elapsed) = try await Self.time {
                try await withThrowingTaskGroup(of: String.self) { group in
                    for _ in 0..<1000 { group.addTask { try await manager.session(minTTL: 60).accessToken } }
                    return try await group.reduce(into: Set<String>()) { $0.insert($1) }
                }
            }
            let refreshes = try await server.refreshCount() - before
            #expect(refreshes == 1)
            #expect(tokens.count == 1)
            Self.report(
                "concurrent_callers",
                [
                    "callers": "1000", "refreshes_reaching_server": "\(refreshes)",
                    "wall": String(format: "%.3fms", Double(elapsed) / 1e6),
                ])
        }
    }
}
