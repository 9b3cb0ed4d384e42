import Foundation
import LatchkeyTesting
import Logging

@testable import LatchkeyServer

/// The server's ``FeatureDependencies`` over a temporary SQLite store, for tests that need the
/// features without HTTP.
enum ServiceFixture {
    static func withDependencies<T>(_ body: (FeatureDependencies) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-service-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let configuration = ServerConfiguration(dataDirectory: directory)
        let store = try SQLiteAuthStore(path: directory.appendingPathComponent("db.sqlite").path)
        let hasher = PasswordHasher(cost: 4, threads: 1)
        let clock = ManualServerClock()
        let secret = String(repeating: "f", count: 40)
        let dependencies = FeatureDependencies(
            configuration: configuration, store: store, clock: clock, hasher: hasher,
            signer: await TokenSigner(secret: secret, origin: ServerOrigin("http://test")), tokens: OpaqueTokens(jwtSecret: secret),
            mailer: FileOutboxMailer(directory: directory.appendingPathComponent("outbox")),
            rateLimitCounter: InMemoryRateLimitCounter(), logger: Logger(label: "fixture"),
            origin: ServerOrigin("http://test"))
        let result = try await body(dependencies)
        try await store.close()
        try await hasher.shutdown()
        return result
    }
}
