import Foundation
import LatchkeyTestSupport
import Testing

@testable import Latchkey

/// `manager.account.importSupabaseSession(from:storageKey:)` against the real server: the
/// session supabase-swift stored (here: the tokens of a real sign-in, written in supabase-swift's
/// storage shapes by ``SupabaseSessionFixture``) is taken over at the first launch without a new
/// sign-in, and the old item is removed only once the new session is stored.
@Suite("Importing supabase-swift's stored session")
struct ImportSupabaseSessionTests {
    static let supabaseURL = URL(string: "https://abcdefghijklmnop.supabase.co")!
    static var key: String { SupabaseStorageKey.default(supabaseURL: supabaseURL)! }

    /// A user signed in with "supabase-swift" (another installation of the app, on the same
    /// server), and that session's bytes as supabase-swift stored them.
    static func oldSession(
        _ server: TestServer, encode: (Session) throws -> Data = SupabaseSessionFixture.current
    ) async throws -> (Session, Data) {
        let (_, old) = try await E2EApp(server: server).signUp()
        return (old, try encode(old))
    }

    @Test("a live access token: imported with no refresh, stored, the old item removed, an authorized call works")
    func liveAccessToken() async throws {
        try await withTestServer { server in
            let (old, bytes) = try await Self.oldSession(server)
            let source = MemorySupabaseSource([Self.key: bytes])
            let refreshesBefore = try await server.refreshCount()

            let app = E2EApp(server: server)
            let manager = app.launch()  // not restored yet: the import restores first
            let session = try #require(try await manager.account.importSupabaseSession(from: source, storageKey: Self.key))
            #expect(session.user.id == old.user.id)
            #expect(session.refreshToken == old.refreshToken)
            #expect(try await server.refreshCount() == refreshesBefore, "no refresh was spent")
            #expect(try await app.storedRefreshToken() == old.refreshToken, "stored like a sign-in")
            #expect(await source.items.isEmpty, "the old item is removed once the new session is stored")
            #expect(try await manager.account.refreshUser().id == old.user.id, "an authorized call works")

            // The next launch is signed in from Latchkey's store; nothing left to import.
            let relaunched = app.launch()
            #expect(await relaunched.restore().session?.user.id == old.user.id)
            let imported = try await relaunched.account.importSupabaseSession(from: source, storageKey: Self.key)
            #expect(imported == nil)
        }
    }

    @Test("an expired access token: exactly one refresh, and the rotated session is stored")
    func expiredAccessToken() async throws {
        try await withTestServer { server in
            let (old, bytes) = try await Self.oldSession(server)
            let source = MemorySupabaseSource([Self.key: bytes])
            let refreshesBefore = try await server.refreshCount()
            let app = E2EApp(server: server)
            app.clock.advance(by: 2 * 3600)  // the access token (one hour) has expired on this device
            let manager = app.launch()
            let session = try #require(try await manager.account.importSupabaseSession(from: source, storageKey: Self.key))
            #expect(session.user.id == old.user.id)
            #expect(session.refreshToken != old.refreshToken)
            #expect(try await server.refreshCount() == refreshesBefore + 1, "exactly one refresh")
            #expect(try await app.storedRefreshToken() == session.refreshToken)
            #expect(await source.items.isEmpty)
        }
    }

    @Test("a session ended at the server: sessionRevoked, nothing saved, the old item kept")
    func endedSession() async throws {
        try await withTestServer { server in
            let (old, bytes) = try await Self.oldSession(server)
            try await server.logoutEverywhere(userID: old.user.id)
            let source = MemorySupabaseSource([Self.key: bytes])
            let app = E2EApp(server: server)
            let manager = app.launch()
            let failure = await #expect(throws: AuthFailure.self) {
                try await manager.account.importSupabaseSession(from: source, storageKey: Self.key)
            }
            #expect(failure?.category == .sessionRevoked)
            #expect(try await app.storedRefreshToken() == nil)
            #expect(await manager.currentSession == nil)
            #expect(await source.items == [Self.key: bytes], "kept: the import can be tried again")
            #expect(await source.removals == 0)
        }
    }

    @Test("an item that is not a supabase-swift session: a clear storage error, no request, the item kept")
    func malformedItem() async throws {
        try await withTestServer { server in
            let bytes = Data(#"{"access_token":"SECRET-ACCESS"}"#.utf8)
            let source = MemorySupabaseSource([Self.key: bytes])
            let app = E2EApp(server: server)
            let manager = app.launch()
            do {
                try await manager.account.importSupabaseSession(from: source, storageKey: Self.key)
                Issue.record("a malformed item must not import")
            } catch let failure as AuthFailure {
                #expect(failure.category == .storage(.corrupted(reason: #"supabase-swift session: the item has no "refresh_token""#)))
                #expect(failure.code == "supabase_session_unreadable")
                #expect(!"\(failure)".contains("SECRET"))
            }
            #expect(app.transport.total == 0, "no request")
            #expect(await source.items == [Self.key: bytes])
            #expect(try await app.storedRefreshToken() == nil)
        }
    }

    @Test("nothing stored: nil, with no request; both the configured and the legacy key are looked at")
    func nothingStored() async throws {
        try await withTestServer { server in
            let source = MemorySupabaseSource()
            let app = E2EApp(server: server)
            let manager = app.launch()
            let imported = try await manager.account.importSupabaseSession(from: source, storageKey: Self.key)
            #expect(imported == nil)
            #expect(app.transport.total == 0)
            #expect(await source.reads == 2)
            #expect(await source.removals == 0)
            #expect(await manager.currentSession == nil)
        }
    }

    @Test(
        "older shapes: v2.17–v2.26's snake-case session, and the wrapped session of earlier versions",
        arguments: [SupabaseStoredSession.Format.snakeCase, .wrapped])
    func olderFormats(format: SupabaseStoredSession.Format) async throws {
        try await withTestServer { server in
            let (old, bytes) = try await Self.oldSession(
                server, encode: format == .wrapped ? SupabaseSessionFixture.wrapped : SupabaseSessionFixture.snakeCase)
            #expect(try SupabaseStoredSession(data: bytes).format == format)
            let source = MemorySupabaseSource([Self.key: bytes])
            let refreshesBefore = try await server.refreshCount()
            let app = E2EApp(server: server)
            let session = try #require(try await app.launch().account.importSupabaseSession(from: source, storageKey: Self.key))
            #expect(session.user.id == old.user.id)
            #expect(try await server.refreshCount() == refreshesBefore)
            #expect(try await app.storedRefreshToken() == old.refreshToken)
            #expect(await source.items.isEmpty)
        }
    }

    @Test("the legacy key of versions before v2.13.5, read when the configured key holds nothing, and removed")
    func legacyKey() async throws {
        try await withTestServer { server in
            let (old, bytes) = try await Self.oldSession(server, encode: SupabaseSessionFixture.wrapped)
            let source = MemorySupabaseSource([SupabaseStorageKey.legacy: bytes])
            let app = E2EApp(server: server)
            let session = try #require(try await app.launch().account.importSupabaseSession(from: source, storageKey: Self.key))
            #expect(session.user.id == old.user.id)
            #expect(await source.items.isEmpty)
        }
    }

    @Test("the old item cannot be removed: the import still succeeds, and the next launch removes it without importing again")
    func removalFails() async throws {
        try await withTestServer { server in
            let (old, bytes) = try await Self.oldSession(server)
            let source = MemorySupabaseSource([Self.key: bytes])
            await source.setRemoveError(StorageError.locked)
            let app = E2EApp(server: server)
            let session = try #require(try await app.launch().account.importSupabaseSession(from: source, storageKey: Self.key))
            #expect(session.user.id == old.user.id)
            #expect(try await app.storedRefreshToken() == old.refreshToken, "the new session is stored")
            #expect(await source.items == [Self.key: bytes], "the removal failed")

            await source.setRemoveError(nil)
            let refreshesBefore = try await server.refreshCount()
            let relaunched = app.launch()
            let imported = try await relaunched.account.importSupabaseSession(from: source, storageKey: Self.key)
            #expect(imported == nil, "not imported twice")
            #expect(await relaunched.currentSession?.user.id == old.user.id, "restored from Latchkey's store")
            #expect(try await server.refreshCount() == refreshesBefore, "the old refresh token is not spent again")
            #expect(await source.items.isEmpty, "the leftover is removed")
        }
    }

    @Test("Latchkey's store refuses the write: signed in from memory, the old item kept until the session is stored")
    func storeRefusesWrite() async throws {
        try await withTestServer { server in
            let (old, bytes) = try await Self.oldSession(server)
            let source = MemorySupabaseSource([Self.key: bytes])
            let store = FaultyStore()
            await store.setSaveError(.locked)
            let app = E2EApp(server: server, store: store)
            let manager = app.launch()
            let session = try #require(try await manager.account.importSupabaseSession(from: source, storageKey: Self.key))
            #expect(session.user.id == old.user.id)
            #expect(await manager.hasUnsavedSession)
            #expect(await source.items == [Self.key: bytes], "kept while the new session is in memory only")

            await store.setSaveError(nil)
            await manager.protectedDataDidBecomeAvailable()
            #expect(await !manager.hasUnsavedSession)
            let imported = try await manager.account.importSupabaseSession(from: source, storageKey: Self.key)
            #expect(imported == nil)
            #expect(await source.items.isEmpty, "removed once the new session is stored")
        }
    }

    @Test("supabase-swift's storage cannot be read (a locked device): a retryable storage failure, nothing removed")
    func sourceUnreadable() async throws {
        try await withTestServer { server in
            let source = MemorySupabaseSource([Self.key: Data("{}".utf8)])
            await source.setReadError(StorageError.locked)
            let app = E2EApp(server: server)
            do {
                try await app.launch().account.importSupabaseSession(from: source, storageKey: Self.key)
                Issue.record("an unreadable storage must throw")
            } catch let failure as AuthFailure {
                #expect(failure.category == .storage(.locked))
                #expect(failure.isRetryable)
            }
            #expect(await source.removals == 0)
            #expect(app.transport.total == 0)
        }
    }
}
