import Foundation
import GRDB
import Testing

@testable import LatchkeyServer

/// The SQLite store answers bearer checks and `GET /user` from memory while nothing was
/// committed, and never once anything was: by itself, by another store on the same file, or by
/// a plain SQLite connection as another process would.
@Suite("SQLite read cache")
struct SQLiteReadCacheTests {
    let conformance = AuthStoreConformanceTests()

    /// A store on a new file, a second store on the same file, and the path.
    private func stores(_ body: (SQLiteAuthStore, SQLiteAuthStore, String) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("latchkey-read-cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("store.sqlite").path
        let store = try SQLiteAuthStore(path: path)
        let other = try SQLiteAuthStore(path: path)
        do {
            try await body(store, other, path)
        } catch {
            try? await store.close()
            try? await other.close()
            throw error
        }
        try? await store.close()
        try await other.close()
    }

    @Test("the version holds while nothing is committed and moves with every commit, from any connection")
    func probe() async throws {
        try await stores { store, other, path in
            let first = try #require(store.committedVersion)
            _ = try await store.sessionWithUser(id: UUID())
            #expect(store.committedVersion == first)
            try await other.insertUser(AuthStoreConformanceTests.user("probe@example.com"), audit: nil)
            let second = try #require(store.committedVersion)
            #expect(second != first)
            try await store.insertUser(AuthStoreConformanceTests.user("probe2@example.com"), audit: nil)
            let third = try #require(store.committedVersion)
            #expect(third != second)
            let plain = try DatabaseQueue(path: path)
            try await plain.write { db in try db.execute(sql: "UPDATE users SET user_metadata = '{}'") }
            try plain.close()
            #expect(store.committedVersion != third)
        }
    }

    @Test("a bearer check's session is kept, and read again once another store ends it or bans its user")
    func sessionsFollowCommits() async throws {
        try await stores { store, other, _ in
            let (user, session, _) = try await conformance.signedIn(store)
            let read = try #require(try await store.sessionWithUser(id: session.id))
            #expect(read.user == user)
            let version = try #require(store.committedVersion)
            #expect(store.sessionsWithUsers.value(for: session.id, at: version) != nil)
            #expect(try await store.sessionWithUser(id: session.id)?.session == session)

            var banned = user
            banned.bannedUntil = AuthStoreConformanceTests.t0.addingTimeInterval(86_400 * 365 * 100)
            try await other.updateUser(banned, audit: nil)
            #expect(try await store.sessionWithUser(id: session.id)?.user.bannedUntil == banned.bannedUntil)

            _ = try await other.endSessions(userID: user.id, except: nil, only: nil, audit: nil)
            #expect(try await store.sessionWithUser(id: session.id) == nil)
        }
    }

    @Test("a session deleted by a plain SQLite connection is not served from memory")
    func plainConnection() async throws {
        try await stores { store, _, path in
            let (_, session, _) = try await conformance.signedIn(store)
            #expect(try await store.sessionWithUser(id: session.id) != nil)
            let plain = try DatabaseQueue(path: path)
            try await plain.write { db in try db.execute(sql: "DELETE FROM sessions") }
            try plain.close()
            #expect(try await store.sessionWithUser(id: session.id) == nil)
        }
    }

    @Test("factors and identities are read again after a change")
    func listsFollowCommits() async throws {
        try await stores { store, other, _ in
            let (user, _, _) = try await conformance.signedIn(store)
            #expect(try await store.factors(userID: user.id).isEmpty)
            #expect(try await store.identities(userID: user.id).isEmpty)
            try await conformance.change(other, user, [.insertFactor(AuthStoreConformanceTests.factor(user, name: "phone"))])
            #expect(try await store.factors(userID: user.id).map(\.friendlyName) == ["phone"])
            #expect(try await store.factors(userID: user.id).count == 1)
        }
    }

    @Test("a closed store serves nothing from memory")
    func closed() async throws {
        try await stores { store, _, _ in
            let (_, session, _) = try await conformance.signedIn(store)
            #expect(try await store.sessionWithUser(id: session.id) != nil)
            try await store.close()
            #expect(store.committedVersion == nil)
            await #expect(throws: StoreError.self) { try await store.sessionWithUser(id: session.id) }
        }
    }
}
