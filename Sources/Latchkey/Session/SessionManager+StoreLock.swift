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
    /// and a read-modify-write first re-reads the store under it (``rereadStore(comparedTo:_:)``),
    /// so no process ever puts back a refresh token another one has spent.
    ///
    /// The lock is taken only inside a ``SessionManagerConfiguration/backgroundActivity``
    /// assertion, held for at most ``SessionManagerConfiguration/crossProcessLockMaximumHold``,
    /// and given up when the system is about to suspend the process (``StoreLease``: the
    /// expiration handler waits at most
    /// ``SessionManagerConfiguration/crossProcessLockExpirationWait`` for a running write, then
    /// releases the lock and ends the assertion before it returns); check
    /// ``StoreLease/isHeld`` before relying on it after a long wait, and write through
    /// ``persist(_:under:)`` or ``deleteStored(under:)``.
    ///
    /// Release the lease exactly once. Lock before ``commitLock``, never the other way round.
    /// - Returns: The held lease, or `nil` when no lock is configured (one process).
    /// - Throws: ``BackendError/TransportFailure/lockUnavailable`` when the lock file cannot be
    ///   opened or the system grants no time to hold it, ``BackendError/TransportFailure/timedOut``
    ///   when another process holds the lock longer than
    ///   ``SessionManagerConfiguration/crossProcessLockTimeout``.
    func lockStore(_ operation: String) async throws(BackendError) -> StoreLease? {
        guard let url = configuration.crossProcessLockURL else { return nil }
        let lease = StoreLease()
        let expirationWait = configuration.crossProcessLockExpirationWait
        guard
            let assertion = await configuration.backgroundActivity.begin(
                name: "Latchkey session write", expiration: { [weak lease] in lease?.expire(waitingAtMost: expirationWait) })
        else {
            logger.warning("no background time to hold the cross-process lock", metadata: metadata(operation))
            throw .transport(.lockUnavailable)
        }
        guard lease.attach(assertion) else {
            // The system's time ran out before the assertion was even handed over.
            lease.abandon()
            logger.warning("background time ended before the cross-process lock was taken", metadata: metadata(operation))
            throw .transport(.lockUnavailable)
        }
        let handle: FileLock.Handle?
        do {
            handle = try await FileLock(url: url).acquire(
                timeout: configuration.crossProcessLockTimeout, giveUp: { lease.isRevoked })
        } catch {
            lease.abandon()
            logger.warning(
                "cannot take the cross-process lock",
                metadata: metadata(operation).merging(
                    ["error": "\(error)"], uniquingKeysWith: { $1 }))
            throw .transport(.lockUnavailable)
        }
        guard let handle else {
            let expired = lease.isRevoked
            lease.abandon()
            if expired {
                logger.warning("background time ended while waiting for the cross-process lock", metadata: metadata(operation))
                throw .transport(.lockUnavailable)
            }
            logger.warning("timed out waiting for the cross-process lock", metadata: metadata(operation))
            throw .transport(.timedOut)
        }
        guard lease.attach(handle) else {
            logger.warning("background time ended while taking the cross-process lock", metadata: metadata(operation))
            throw .transport(.lockUnavailable)
        }
        lease.bound(by: configuration.crossProcessLockMaximumHold, clock: clock)
        return lease
    }

    /// ``lockStore(_:)`` for writes that must happen whatever (a sign-in's session, a
    /// sign-out's delete): `nil` when the lock cannot be taken, and the write goes ahead.
    func lockStoreIfPossible(_ operation: String) async -> StoreLease? {
        try? await lockStore(operation)
    }

    /// Re-reads the store, holding the cross-process lock, to learn what another process did
    /// since `known` was read. A store that cannot be read counts as unchanged.
    ///
    /// While the session in memory is unsaved (``UnsavedSession``), a store that still holds
    /// what it held when the write failed (``UnsavedSession/storeHolds``, possibly nothing) is
    /// behind, not changed: the newer session in memory is never replaced by the older stored
    /// one. Any other tokens were written by another process since, and are newer.
    func rereadStore(comparedTo known: StoredSession, _ operation: String) async -> StoreReread {
        let stored: StoredSession?
        do {
            stored = try await loadRecord()
        } catch {
            logger.warning("cannot re-read the store; using the session in memory", metadata: metadata(operation))
            return .unchanged(known)
        }
        let behind = unsaved.map { $0.storeHolds == stored?.session.refreshToken } ?? false
        if behind, stored?.session.refreshToken != known.session.refreshToken {
            logger.debug("the store is behind the unsaved session in memory", metadata: metadata(operation))
            return .unchanged(known)
        }
        guard let stored else { return .signedOut }
        return stored.session.refreshToken == known.session.refreshToken ? .unchanged(known) : .changed(stored)
    }

    /// Runs a store write under `lease`: a revocation (the system about to suspend the process)
    /// waits for it to finish before the lock is released. A lease already given up, or none,
    /// lets the write go ahead unprotected, which callers choose knowingly.
    func underLease<Result>(_ lease: StoreLease?, _ operation: String, _ write: () async -> Result) async -> Result {
        let protected = lease?.beginWrite() ?? false
        if lease != nil, !protected {
            logger.notice("writing the store after the cross-process lock was given up", metadata: metadata(operation))
        }
        defer { if protected { lease?.endWrite() } }
        return await write()
    }
}
