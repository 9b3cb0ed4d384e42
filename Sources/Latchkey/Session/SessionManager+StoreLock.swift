import Foundation
import Logging

/// What the store holds, re-read under the cross-process lock, compared with what this process
/// last knew.
enum StoreReread {
    /// The store holds the same tokens (or could not be read): build on what this process knows.
    case unchanged(StoredSession)
    /// Another process wrote other tokens (a refresh, a sign-in): build on these.
    case changed(StoredSession)
    /// Another process signed out: the store is empty.
    case signedOut
}

extension SessionManager {
    /// Takes the cross-process lock of ``SessionManagerConfiguration/crossProcessLockURL``, so
    /// that no other process sharing the store writes it until the lock is released. Every
    /// write of the stored session holds it — a refresh, a sign-in, a user update, a sign-out —
    /// and a read-modify-write first re-reads the store under it (``rereadStore(comparedTo:)``),
    /// so no process ever puts back a refresh token another one has spent.
    ///
    /// Release the handle exactly once. Lock before ``commitLock``, never the other way round.
    /// - Returns: The held lock, or `nil` when no lock is configured (one process).
    /// - Throws: ``BackendError/TransportFailure/lockUnavailable`` when the lock file cannot be
    ///   opened, ``BackendError/TransportFailure/timedOut`` when another process holds the lock
    ///   longer than ``SessionManagerConfiguration/crossProcessLockTimeout``.
    func lockStore(_ operation: String) async throws(BackendError) -> FileLock.Handle? {
        guard let url = configuration.crossProcessLockURL else { return nil }
        let handle: FileLock.Handle?
        do {
            handle = try await FileLock(url: url).acquire(timeout: configuration.crossProcessLockTimeout)
        } catch {
            logger.warning("cannot take the cross-process lock", metadata: metadata(operation).merging(
                ["error": "\(error)"], uniquingKeysWith: { $1 }))
            throw .transport(.lockUnavailable)
        }
        guard let handle else {
            logger.warning("timed out waiting for the cross-process lock", metadata: metadata(operation))
            throw .transport(.timedOut)
        }
        return handle
    }

    /// ``lockStore(_:)`` for writes that must happen whatever (a sign-in's session, a
    /// sign-out's delete): `nil` when the lock cannot be taken, and the write goes ahead.
    func lockStoreIfPossible(_ operation: String) async -> FileLock.Handle? {
        try? await lockStore(operation)
    }

    /// Re-reads the store, holding the cross-process lock, to learn what another process did
    /// since `known` was read. A store that cannot be read counts as unchanged.
    func rereadStore(comparedTo known: StoredSession, _ operation: String) async -> StoreReread {
        let stored: StoredSession?
        do {
            stored = try await loadRecord()
        } catch {
            logger.warning("cannot re-read the store; using the session in memory", metadata: metadata(operation))
            return .unchanged(known)
        }
        guard let stored else { return .signedOut }
        return stored.session.refreshToken == known.session.refreshToken ? .unchanged(known) : .changed(stored)
    }
}
