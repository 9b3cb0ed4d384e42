import Foundation
import Logging

extension AuthAccount {
    /// Takes over the session supabase-swift left on the device, at the first launch of an app
    /// that replaced supabase-swift with Latchkey, so its user stays signed in.
    ///
    /// ```swift
    /// let manager = SessionManager(...)
    /// await manager.restore()
    /// let key = SupabaseStorageKey.default(supabaseURL: supabaseURL)!  // or the app's own storageKey
    /// try await manager.account.importSupabaseSession(from: SupabaseKeychainSessionSource(), storageKey: key)
    /// ```
    ///
    /// The item stored under `storageKey` (or, when that holds nothing, under
    /// ``SupabaseStorageKey/legacy``) is read as ``SupabaseStoredSession`` and its tokens are
    /// handed to ``importSession(accessToken:refreshToken:)``: a live access token costs one
    /// `GET /user` and no refresh, an expired one exactly one refresh. Once the new session is
    /// **stored**, the old item is removed.
    ///
    /// - Nothing stored: returns `nil`, with no request to the server. Call it at every launch;
    ///   it costs one storage read once the import is done.
    /// - Already signed in with Latchkey (the stored session was restored): nothing is imported —
    ///   the old item's refresh token must not be spent again — and a leftover item is removed.
    ///   Returns `nil`. If the manager has not decided yet (``AuthState/unknown``), it restores
    ///   first.
    /// - The import fails (offline, the session ended at the server, the item is unreadable):
    ///   throws, saves nothing, and keeps the old item, so a later launch can try again.
    /// - Imported, but Latchkey's store refused the write (``SessionManager/hasUnsavedSession``,
    ///   a locked device): the user is signed in from memory and the old item is kept; the next
    ///   call, once the session is stored, removes it.
    /// - Imported and stored, but the old item cannot be removed: returns the session anyway
    ///   (the user is signed in, and a throw would invite a second import) and logs a warning;
    ///   the next call removes the item.
    ///
    /// - Parameters:
    ///   - source: Where supabase-swift kept its session: ``SupabaseKeychainSessionSource`` for
    ///     its default keychain storage, or the app's own storage.
    ///   - storageKey: The key supabase-swift stored the session under:
    ///     ``SupabaseStorageKey/default(supabaseURL:)`` for a `SupabaseClient` with default
    ///     options, ``SupabaseStorageKey/authClient`` for a bare `AuthClient`, or the
    ///     `storageKey` the app configured.
    /// - Returns: The imported session, or `nil` when nothing was imported.
    /// - Throws: ``AuthFailure``: ``AuthFailure/Category/sessionRevoked`` when the old session
    ///   is no longer good at the server; ``AuthFailure/Category/storage(_:)`` when the old
    ///   item cannot be read (``StorageError/locked``: try again once the device is unlocked),
    ///   when it is not a supabase-swift session (``StorageError/corrupted(reason:)``, code
    ///   `supabase_session_unreadable`), or when Latchkey's own store cannot be read (then it
    ///   may hold a session, and nothing is imported over it).
    @discardableResult
    public func importSupabaseSession(from source: some SupabaseSessionSource, storageKey: String) async throws -> Session? {
        let logger = manager.logger
        var state = await manager.state
        if state == .unknown { state = await manager.restore() }

        let keys = [storageKey, SupabaseStorageKey.legacy]
        if state.isSignedIn {
            // Latchkey's session wins; supabase-swift's is a leftover (its removal failed, or
            // the app signed in anew), removed once Latchkey's is stored.
            if await !manager.hasUnsavedSession { await Self.removeLeftover(from: source, keys: keys, logger: logger) }
            return nil
        }
        guard let found = try await Self.readSupabaseItem(from: source, keys: keys) else { return nil }
        let (key, data) = found
        if case .signedOut(.storageFailure(let error)) = state {
            // Latchkey's own store cannot be read: it may hold a session not to be replaced.
            throw AuthFailure(.storage(error))
        }

        let stored: SupabaseStoredSession
        do {
            stored = try SupabaseStoredSession(data: data)
        } catch let error as SupabaseStoredSession.FormatError {
            logger.warning(
                "supabase-swift's session is unreadable: kept", metadata: ["operation": "import_supabase_session", "reason": "\(error.reason)"])
            throw AuthFailure(.storage(.corrupted(reason: "supabase-swift session: \(error.reason)")), code: "supabase_session_unreadable")
        }
        logger.info("importing supabase-swift's session", metadata: ["operation": "import_supabase_session", "format": "\(stored.format.rawValue)"])
        let session = try await importSession(accessToken: stored.accessToken, refreshToken: stored.refreshToken)
        if await manager.hasUnsavedSession {
            logger.warning(
                "the imported session is not stored yet: supabase-swift's session is kept", metadata: ["operation": "import_supabase_session"])
            return session
        }
        await Self.removeSupabaseItem(key, from: source, logger: logger)
        return session
    }

    /// The first of `keys` that holds an item, with its bytes.
    private static func readSupabaseItem(from source: some SupabaseSessionSource, keys: [String]) async throws -> (String, Data)? {
        for key in keys {
            let data: Data?
            do {
                data = try await source.read(key: key)
            } catch {
                throw AuthFailure(.storage(error as? StorageError ?? .unavailable(reason: "supabase-swift's storage cannot be read")))
            }
            if let data { return (key, data) }
        }
        return nil
    }

    /// Removes what supabase-swift left under `keys`, if anything; failures are logged.
    private static func removeLeftover(from source: some SupabaseSessionSource, keys: [String], logger: Logger) async {
        for key in keys {
            do {
                guard try await source.read(key: key) != nil else { continue }
            } catch {
                continue  // cannot tell now (a locked device): the next call tries again
            }
            logger.info("signed in already: removing supabase-swift's session", metadata: ["operation": "import_supabase_session"])
            await removeSupabaseItem(key, from: source, logger: logger)
        }
    }

    /// Removes the old item; a failure is logged, not thrown (see the import's documentation).
    private static func removeSupabaseItem(_ key: String, from source: some SupabaseSessionSource, logger: Logger) async {
        do {
            try await source.remove(key: key)
        } catch {
            let reason = (error as? StorageError).map { "\($0)" } ?? "\(type(of: error))"
            logger.warning(
                "supabase-swift's session could not be removed: removed at the next import",
                metadata: ["operation": "import_supabase_session", "error": "\(reason)"])
        }
    }
}
