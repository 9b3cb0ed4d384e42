import Foundation
import Logging

extension SessionManager {
    /// Tells the manager the app's lifecycle phase (forward SwiftUI's `scenePhase`).
    ///
    /// - `background`: proactive refresh pauses (unless
    ///   ``SessionManagerConfiguration/refreshesInBackground``, as on macOS, where a minimized
    ///   window is in the background but its process runs).
    /// - `active`: first, a session that could not be stored while the device was locked is
    ///   stored (``hasUnsavedSession``).
    /// - `active` while the launch could not read the store or the install marker (a locked
    ///   device, a launch before the first unlock after a reboot): launch is decided again
    ///   (``restore()``), whatever the previous phase.
    /// - `active` otherwise: the wall clock is checked again first, because the device may have
    ///   slept (a suspended process's timers do not count that time): a session past the
    ///   ``SessionManagerConfiguration/maximumSessionAge`` ends, and both timers are re-armed
    ///   from the wall clock. Then, after more than
    ///   ``SessionManagerConfiguration/foregroundRefreshThreshold`` in the background, the
    ///   session is refreshed and the user re-fetched, to notice a revoked session or a deleted
    ///   account. After a shorter absence nothing is sent unless the refresh is due.
    public func setPhase(_ newPhase: AppPhase) async {
        let previous = phase
        phase = newPhase
        switch newPhase {
        case .background, .inactive:
            if newPhase == .background, backgroundedAt == nil {
                backgroundedAt = clock.now()
                if !configuration.refreshesInBackground {
                    refreshTimer?.cancel()
                    refreshTimer = nil
                }
            }
        case .active:
            // An active app's device is unlocked: store a session the store refused meanwhile.
            await saveUnsaved("foreground")
            if case .signedOut(.storageFailure) = state {
                backgroundedAt = nil
                await restore()
                return
            }
            guard previous != .active else { return }
            let away = backgroundedAt.map { clock.now().timeIntervalSince($0) } ?? 0
            backgroundedAt = nil
            guard record != nil, state.isSignedIn else { return }
            if await endSessionIfTooOld() { return }
            scheduleAgeTimer()
            if away > configuration.foregroundRefreshThreshold {
                logger.info("back from a long background; revalidating", metadata: metadata("foreground"))
                await revalidate()
            } else {
                scheduleRefresh()
            }
        }
    }

    /// Tells the manager the computer woke from sleep (forward AppKit's
    /// `NSWorkspace.didWakeNotification`, posted on `NSWorkspace.shared.notificationCenter`).
    ///
    /// A Mac app stays active across a sleep, so ``setPhase(_:)`` hears nothing of it, and its
    /// timers did not count the time asleep. So the wall clock is checked again: a session past
    /// the ``SessionManagerConfiguration/maximumSessionAge`` ends, and both timers are re-armed
    /// from the wall clock (a refresh that fell due while asleep runs now). When the server was
    /// last heard from more than ``SessionManagerConfiguration/foregroundRefreshThreshold`` ago,
    /// the session is refreshed and the user re-fetched, to notice a revoked session or a
    /// deleted account. A session the store refused is stored first.
    public func systemDidWake() async {
        await saveUnsaved("wake")
        if case .signedOut(.storageFailure) = state {
            await restore()
            return
        }
        guard let record, state.isSignedIn else { return }
        if await endSessionIfTooOld() { return }
        scheduleAgeTimer()
        if clock.now().timeIntervalSince(record.lastServerContact) > configuration.foregroundRefreshThreshold,
            phase == .active || configuration.refreshesInBackground
        {
            logger.info("woke from a long sleep; revalidating", metadata: metadata("wake"))
            await revalidate()
        } else {
            scheduleRefresh()
        }
    }

    /// Ends the session if the wall clock says it is older than the maximum session age (the
    /// age timer may not have fired: the device slept). Returns whether it ended it.
    func endSessionIfTooOld() async -> Bool {
        guard let maximumAge = configuration.maximumSessionAge, let record,
            clock.now().timeIntervalSince(record.signedInAt) >= maximumAge
        else { return false }
        logger.notice("maximum session age reached", metadata: metadata("session_age"))
        await endSession(.maximumSessionAgeExceeded, ifGeneration: generation)
        return true
    }

    /// Re-fetches the user from the server, updating the stored copy
    /// (``AuthAccount/refreshUser()``). A deleted or banned account, or a revoked session, signs
    /// out.
    /// - Throws: ``AuthFailure``.
    @discardableResult
    func fetchUser() async throws -> User {
        let session = try await self.session(minTTL: 30)
        let generation = self.generation
        do {
            let user = try await backend.user(accessToken: session.accessToken)
            await updateStoredUser(user, generation: generation)
            return user
        } catch {
            let backendError = BackendError(error)
            if let reason = backendError.definitiveSignOutReason {
                await endSession(reason, ifGeneration: generation)
            }
            throw AuthFailure(backend: backendError)
        }
    }

    /// Refresh and re-fetch the user; failures are handled (kept or signed out) and logged.
    func revalidate() async {
        do {
            if await sessionHeldBackByUnsavedWrite("foreground") == nil {
                try await sharedRefresh()
            }
            try await fetchUser()
        } catch {
            logger.info(
                "revalidation did not complete",
                metadata: metadata("foreground").merging(
                    ["error": "\(error)"], uniquingKeysWith: { $1 }))
        }
    }

    /// Stores `user` as the signed-in user's profile, unless the session changed identity since
    /// `generation`.
    ///
    /// Like a refresh, it holds the cross-process lock and re-reads the store first, and merges
    /// `user` into the newest stored session: tokens another process rotated meanwhile are kept
    /// (and adopted here), never overwritten with the spent ones this process still held. When
    /// another process signed out, or signed in another account, nothing is written. When the
    /// lock cannot be taken, the user is updated in memory only.
    func updateStoredUser(_ user: User, generation: UInt64) async {
        let lock: StoreLease?
        do {
            lock = try await lockStore("update_user")
        } catch {
            await publishUserInMemory(user, generation: generation)
            return
        }
        defer { lock?.release() }
        await commitLock.lock()
        defer { commitLock.unlock() }
        guard generation == self.generation, let known = record else { return }
        var base = known
        if lock != nil {
            switch await rereadStore(comparedTo: known, "update_user") {
            case .unchanged: break
            case .changed(let stored) where stored.session.user.id == user.id: base = stored
            case .changed, .signedOut:
                logger.notice("the stored session changed in another process; user not stored", metadata: metadata("update_user"))
                return
            }
        }
        var updated = base
        updated.session = base.session.replacingUser(user)
        updated.lastServerContact = clock.now()
        if await persist(updated, under: lock) == nil {
            unsaved = nil
        } else if base.session.refreshToken != known.session.refreshToken {
            // The store holds the tokens adopted here; only the profile is missing from it.
            unsaved = nil
        }
        apply(updated, offline: isOffline)
        broadcaster.emit(.userUpdated(user))
        if base.session.refreshToken != known.session.refreshToken {
            logger.info("adopted a session refreshed by another process", metadata: metadata("update_user"))
            broadcaster.emit(.tokenRefreshed(updated.session))
            scheduleRefresh()
        }
    }

    /// Publishes `user` without storing it: the store could not be locked.
    private func publishUserInMemory(_ user: User, generation: UInt64) async {
        await commitLock.lock()
        defer { commitLock.unlock() }
        guard generation == self.generation, var updated = record else { return }
        updated.session = updated.session.replacingUser(user)
        apply(updated, offline: isOffline)
        broadcaster.emit(.userUpdated(user))
    }

    private var isOffline: Bool {
        if case .signedInOffline = state { true } else { false }
    }

    /// Arms the proactive refresh: a margin before expiry, or after the backoff delay while
    /// retrying; at expiry while the session is unsaved (``sessionHeldBackByUnsavedWrite(_:)``),
    /// and not at all once an unsaved session that must not be rotated has expired (storing it
    /// arms the timer again).
    /// Only while active, signed in and automatic refresh is on.
    func scheduleRefresh() {
        refreshTimer?.cancel()
        refreshTimer = nil
        guard configuration.automaticRefresh, phase == .active || configuration.refreshesInBackground,
            let session = record?.session
        else { return }
        let due: Date
        if retryAttempt > 0 {
            due = clock.now().addingTimeInterval(configuration.retryDelay(attempt: retryAttempt))
        } else if let unsaved {
            // Expired and not to be rotated: the write landing schedules the refresh.
            if unsaved.forbidsRotation, session.isExpired(at: clock.now()) { return }
            due = session.expiresAt
        } else {
            let margin = min(configuration.refreshMargin, max(session.expiresIn, 0) / 2)
            due = session.expiresAt.addingTimeInterval(-margin)
        }
        let generation = self.generation
        let clock = self.clock
        refreshTimer = Task { [weak self] in
            do {
                try await clock.sleep(until: due)
            } catch {
                return
            }
            await self?.refreshTimerFired(generation: generation)
        }
    }

    private func refreshTimerFired(generation: UInt64) async {
        guard generation == self.generation, phase == .active || configuration.refreshesInBackground, record != nil
        else { return }
        refreshTimer = nil
        if await sessionHeldBackByUnsavedWrite("refresh") != nil {
            // Still unsaved: refresh when it expires (or, expired, once it is stored).
            if generation == self.generation, refreshTimer == nil { scheduleRefresh() }
            return
        }
        _ = try? await sharedRefresh()
    }

    /// Arms the maximum-session-age warning and end.
    func scheduleAgeTimer() {
        ageTimer?.cancel()
        ageTimer = nil
        guard let maximumAge = configuration.maximumSessionAge, let record else { return }
        let end = record.signedInAt.addingTimeInterval(maximumAge)
        let warning = end.addingTimeInterval(-configuration.sessionExpiryWarning)
        let generation = self.generation
        let clock = self.clock
        ageTimer = Task { [weak self] in
            do {
                if clock.now() < warning {
                    try await clock.sleep(until: warning)
                }
                await self?.warnExpiring(until: end, generation: generation)
                try await clock.sleep(until: end)
            } catch {
                return
            }
            await self?.maximumAgeReached(generation: generation)
        }
    }

    private func warnExpiring(until end: Date, generation: UInt64) {
        guard generation == self.generation, record != nil else { return }
        broadcaster.emit(.sessionExpiring(in: max(0, end.timeIntervalSince(clock.now()))))
    }

    private func maximumAgeReached(generation: UInt64) async {
        guard generation == self.generation, record != nil else { return }
        logger.notice("maximum session age reached", metadata: metadata("session_age"))
        await endSession(.maximumSessionAgeExceeded, ifGeneration: generation)
    }
}
