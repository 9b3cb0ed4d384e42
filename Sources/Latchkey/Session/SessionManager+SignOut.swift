import Foundation
import Logging

extension SessionManager {
    /// Signs out.
    ///
    /// The local session is wiped first, from memory and from the store, whatever happens next.
    /// Then the server is told (best effort: offline or an already-ended session is fine), then
    /// every cleanup step runs, each even if an earlier one failed. The report says what failed.
    ///
    /// With ``SignOutScope/others`` only the user's other sessions end: nothing local changes and
    /// no cleanup runs.
    @discardableResult
    public func signOut(scope: SignOutScope = .local) async -> SignOutReport {
        var report = SignOutReport()
        if scope == .others {
            if let session = try? await self.session(minTTL: 30) {
                report.server = await serverLogout(accessToken: session.accessToken, scope: .others)
            }
            return report
        }

        // Held while deleting, so a refresh in another process cannot write the session back;
        // the local session is wiped even when the lock cannot be taken.
        let lock = await lockStoreIfPossible("sign_out")
        await commitLock.lock()
        let accessToken = record?.session.accessToken
        let userID = record?.session.user.id
        generation += 1
        clearMemory(.userInitiated)
        do {
            try await deleteStored(under: lock)
        } catch {
            report.storageError = error as? StorageError ?? .unavailable(reason: "unexpected store error")
            logger.error("cannot delete stored session", metadata: ["operation": "sign_out", "error": "\(error)"])
        }
        commitLock.unlock()
        lock?.release()

        if let accessToken {
            report.server = await serverLogout(accessToken: accessToken, scope: scope)
        }
        (report.completedSteps, report.failedSteps) = await runCleanupTracked()
        broadcaster.emit(.signedOut(.userInitiated))
        logger.info(
            "signed out",
            metadata: [
                "operation": "sign_out", "user_id": "\(userID ?? "-")", "scope": "\(scope.rawValue)",
                "failed_steps": "\(report.failedSteps.count)",
            ])
        return report
    }

    private func serverLogout(accessToken: String, scope: SignOutScope) async -> SignOutReport.ServerOutcome {
        do {
            try await backend.signOut(accessToken: accessToken, scope: scope)
            return .succeeded
        } catch let error as BackendError {
            if let status = error.status, [401, 403, 404].contains(status) { return .alreadyEnded }
            logger.notice(
                "server logout failed; local session wiped anyway",
                metadata: [
                    "operation": "sign_out", "error": "\(error)",
                ])
            return .failed(AuthFailure(backend: error))
        } catch {
            return .failed(AuthFailure(error))
        }
    }

    /// Ends the session for `reason` unless another sign-in or sign-out happened since
    /// `expectedGeneration` (pass `nil` to end whatever is current): wipes memory and, unless told
    /// otherwise, the store under the commit lock (and the cross-process lock: the caller's
    /// `heldLease` while it still holds it, else one taken here); then, outside the locks, runs the cleanup steps and emits
    /// ``SessionEvent/signedOut(_:)``. Returns whether it ended the session.
    ///
    /// Cleanup runs outside the lock so a step may use the manager (read state, even sign out)
    /// without deadlocking; a sign-in waits for it (``awaitPendingCleanup()``), so the cleanup of
    /// one account can never wipe the next account's fresh data.
    @discardableResult
    func endSession(
        _ reason: SignOutReason, ifGeneration expectedGeneration: UInt64? = nil, wipeStore: Bool = true,
        holding heldLease: StoreLease? = nil
    ) async -> Bool {
        // The caller's lease when it still holds the lock, else a lock of our own.
        let ownLease = wipeStore && heldLease?.isHeld != true ? await lockStoreIfPossible("end_session") : nil
        let lease = ownLease ?? heldLease
        await commitLock.lock()
        guard expectedGeneration == nil || expectedGeneration == generation else {
            commitLock.unlock()
            ownLease?.release()
            return false
        }
        generation += 1
        clearMemory(reason)
        if wipeStore {
            do {
                try await deleteStored(under: lease)
            } catch {
                logger.error("cannot delete ended session", metadata: ["operation": "end_session", "error": "\(error)"])
                broadcaster.emit(.storageFailed(error as? StorageError ?? .unavailable(reason: "unexpected store error")))
            }
        }
        commitLock.unlock()
        ownLease?.release()
        logger.notice("session ended", metadata: ["operation": "end_session", "reason": "\(reason)"])
        _ = await runCleanupTracked()
        broadcaster.emit(.signedOut(reason))
        return true
    }

    /// Runs the cleanup steps as the pending cleanup that sign-ins wait for.
    func runCleanupTracked() async -> (completed: [String], failed: [SignOutReport.StepFailure]) {
        let task = Task { () -> (completed: [String], failed: [SignOutReport.StepFailure]) in
            await self.runCleanupSteps()
        }
        let marker = Task<Void, Never> { _ = await task.value }
        pendingCleanup = marker
        let result = await task.value
        return result
    }

    /// Waits for cleanup steps still running after a sign-out.
    func awaitPendingCleanup() async {
        await pendingCleanup?.value
    }

    private func clearMemory(_ reason: SignOutReason) {
        record = nil
        unsaved = nil
        state = .signedOut(reason)
        retryAttempt = 0
        refreshTimer?.cancel()
        refreshTimer = nil
        ageTimer?.cancel()
        ageTimer = nil
        broadcaster.setCurrent(nil)
    }

    /// Runs every cleanup step in order; a failing step does not stop the others.
    func runCleanupSteps() async -> (completed: [String], failed: [SignOutReport.StepFailure]) {
        var completed: [String] = []
        var failed: [SignOutReport.StepFailure] = []
        for step in cleanupSteps {
            do {
                try await step.body()
                completed.append(step.name)
            } catch {
                failed.append(.init(name: step.name, error: String(describing: error)))
                logger.error(
                    "cleanup step failed",
                    metadata: [
                        "operation": "sign_out_cleanup", "step": "\(step.name)", "error": "\(error)",
                    ])
            }
        }
        return (completed, failed)
    }
}
