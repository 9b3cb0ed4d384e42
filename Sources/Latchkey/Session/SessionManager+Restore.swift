import Foundation
import Logging

extension SessionManager {
    /// Decides at launch whether the user is signed in, signed in offline, or signed out and why.
    ///
    /// - A still-valid access token signs in at once, with no network on the launch path (a
    ///   refresh that is due runs in the background).
    /// - An expired one costs exactly one refresh, awaited up to
    ///   ``SessionManagerConfiguration/launchTimeout``; offline or timed out, the stored session
    ///   is used (``AuthState/signedInOffline(_:)``) within the offline grace period.
    /// - Missing install marker with credentials present (a reinstall): credentials are wiped,
    ///   ``SignOutReason/staleInstall``.
    /// - A store, or an install marker, that cannot be read (a locked device, the first launch
    ///   after a reboot before the first unlock): ``SignOutReason/storageFailure(_:)``, nothing
    ///   wiped, nothing decided. Latchkey restores again when the app becomes active
    ///   (``setPhase(_:)``), signing in with no network request if the token is still valid.
    ///   A read that fails for any reason other than "nothing stored" never wipes anything.
    ///
    /// While signed in with a session the store refused (``hasUnsavedSession``), the store is
    /// not re-read: that session is stored again instead, and the state stays as it is.
    ///
    /// Concurrent calls share one restore. Never throws. Cancelling the caller does not cut a
    /// restore short: the refresh it may wait for, and the sign-out at the maximum session age,
    /// run on their own.
    @discardableResult
    public func restore() async -> AuthState {
        // The first caller runs the restore itself (no task to start and hop to: a launch with a
        // valid token is a store read and a decode); later callers wait for its outcome.
        if restoreWaiters != nil {
            return await withCheckedContinuation { restoreWaiters?.append($0) }
        }
        restoreWaiters = []
        let state = await performRestore()
        let waiters = restoreWaiters ?? []
        restoreWaiters = nil
        for waiter in waiters { waiter.resume(returning: state) }
        return state
    }

    private func performRestore() async -> AuthState {
        // The session in memory is newer than the store's: re-reading would bring back older,
        // spent tokens. Store it instead.
        if unsaved != nil, state.isSignedIn {
            await saveUnsaved("restore")
            return state
        }
        let started = clock.now()
        state = .unknown  // deciding again (a later call re-reads the store)
        unsaved = nil
        if let reason = await checkInstallMarker() {
            return await finishRestore(signedOut: reason)
        }

        let stored: StoredSession?
        do {
            stored = try await loadRecord()
        } catch {
            let storageError = error as? StorageError ?? .unavailable(reason: "unexpected store error")
            logger.error("cannot read stored session", metadata: ["operation": "restore", "error": "\(storageError)"])
            broadcaster.emit(.storageFailed(storageError))
            return await finishRestore(signedOut: .storageFailure(storageError))
        }
        guard let stored else {
            return await finishRestore(signedOut: .noSession)
        }

        if let maximumAge = configuration.maximumSessionAge,
            clock.now().timeIntervalSince(stored.signedInAt) >= maximumAge
        {
            record = stored
            // Its own task: the cross-process lock it takes must not give up with the caller.
            _ = await Task { await self.endSession(.maximumSessionAgeExceeded) }.value
            return state
        }

        // Valid access token: signed in with no network call.
        if !stored.session.isExpired(at: clock.now()) {
            apply(stored)
            finishLaunch(started: started, outcome: "signed_in")
            return state
        }

        // Expired: one refresh, bounded by the launch timeout.
        record = stored
        let deadline = clock.now().addingTimeInterval(configuration.launchTimeout)
        let outcome = await race({ try await self.sharedRefresh() }, deadline: deadline, clock: clock)
        switch outcome {
        case .value:
            finishLaunch(started: started, outcome: "refreshed")
            return state
        case .failure where !state.isSignedIn && state != .unknown:
            // The server ended the session (runRefresh already signed out).
            broadcaster.emit(.initialSession(nil))
            return state
        case .failure, .timedOut:
            return offlineLaunch(stored, started: started)
        }
    }

    /// Signed in offline within the grace period; otherwise signed out with the credentials kept.
    private func offlineLaunch(_ stored: StoredSession, started: Date) -> AuthState {
        switch state {
        case .signedIn:
            // A refresh the launch stopped waiting for has landed meanwhile.
            finishLaunch(started: started, outcome: "refreshed")
            return state
        case .signedOut:
            return state
        case .unknown, .signedInOffline:
            break
        }
        let current = record ?? stored
        if clock.now().timeIntervalSince(current.lastServerContact) <= configuration.offlineGracePeriod {
            apply(current, offline: true)
            finishLaunch(started: started, outcome: "signed_in_offline")
            return state
        }
        state = .signedOut(.offlineGracePeriodExceeded)
        broadcaster.setCurrent(nil)
        broadcaster.emit(.initialSession(nil))
        logger.notice("offline beyond the grace period; credentials kept", metadata: metadata("restore"))
        return state
    }

    private func finishLaunch(started: Date, outcome: String) {
        broadcaster.emit(.initialSession(record?.session))
        if let session = record?.session { announceSecondFactorIfRequired(session) }
        scheduleRefresh()
        scheduleAgeTimer()
        logger.info(
            "session restored",
            metadata: metadata("restore").merging(
                ["outcome": "\(outcome)", "elapsed_ms": "\(Int(clock.now().timeIntervalSince(started) * 1000))"],
                uniquingKeysWith: { $1 }))
    }

    private func finishRestore(signedOut reason: SignOutReason) async -> AuthState {
        record = nil
        state = .signedOut(reason)
        broadcaster.setCurrent(nil)
        broadcaster.emit(.initialSession(nil))
        logger.info("no session at launch", metadata: ["operation": "restore", "reason": "\(reason)"])
        return state
    }

    /// Ends the reinstall check as a storage failure with nothing wiped: logs `message` at
    /// `level` and tells observers. `unreadable` is the reason when `error` is no ``StorageError``.
    private func restoreStorageFailure(
        _ error: any Error, unreadable: String, level: Logger.Level, _ message: Logger.Message
    ) -> SignOutReason {
        let storageError = error as? StorageError ?? .unavailable(reason: unreadable)
        logger.log(level: level, message, metadata: ["operation": "restore", "error": "\(storageError)"])
        broadcaster.emit(.storageFailed(storageError))
        return .storageFailure(storageError)
    }

    /// A reinstall erased the install marker but the keychain kept the credentials: wipe them.
    ///
    /// Wipes only what it could read: a marker that cannot tell, or a store that cannot be
    /// read, ends the restore as a storage failure with nothing wiped and the marker left unset,
    /// so the next restore decides again.
    private func checkInstallMarker() async -> SignOutReason? {
        guard let installMarker else { return nil }
        let isSet: Bool
        do {
            isSet = try await installMarker.isSet()
        } catch {
            return restoreStorageFailure(
                error, unreadable: "install marker unreadable", level: .notice,
                "cannot tell yet whether this is a reinstall; nothing wiped, deciding later")
        }
        guard !isSet else { return nil }
        let hadCredentials: Bool
        do {
            hadCredentials = try await store.load(key: configuration.storageKey) != nil
        } catch {
            // What cannot be read is never wiped: the leftovers may be this installation's own
            // session behind a locked store. The marker stays unset; the next restore decides.
            return restoreStorageFailure(
                error, unreadable: "unexpected store error", level: .error, "cannot read the store to check for a reinstall; nothing wiped")
        }
        if hadCredentials {
            do {
                try await store.delete(key: configuration.storageKey)
            } catch {
                // Leave the marker unset so the next launch tries again.
                logger.error("cannot wipe stale credentials", metadata: ["operation": "restore", "error": "\(error)"])
                return .staleInstall
            }
            _ = await runCleanupTracked()
        }
        do {
            try await installMarker.set()
        } catch {
            logger.warning("cannot set install marker", metadata: ["operation": "restore"])
        }
        if hadCredentials {
            logger.notice("stale credentials from a previous install wiped", metadata: ["operation": "restore"])
            return .staleInstall
        }
        return nil
    }
}
