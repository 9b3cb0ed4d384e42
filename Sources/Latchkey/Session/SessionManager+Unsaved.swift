import Foundation
import Logging

/// A session the store does not hold yet: its write failed (on Apple platforms, typically a
/// keychain item of `whenUnlockedThisDeviceOnly` written while the device is locked).
///
/// The session in memory is then the newest of its refresh-token family, and the only copy of
/// it. The server forgives presenting the parent of its active refresh token, so a store one
/// rotation behind still signs the next launch in; a store two rotations behind does not. So
/// while a session is unsaved, ``SessionManager`` stores it again at every opportunity and starts
/// no refresh that it can avoid.
struct UnsavedSession: Sendable {
    /// The refresh token the store holds (as far as this process knows; `nil`: no session):
    /// what a re-read of the store must not mistake for another process's newer tokens.
    var storeHolds: String?
}

extension SessionManager {
    /// Tells the manager that data protected by the device's passcode can be read and written
    /// again (forward UIKit's `UIApplication.protectedDataDidBecomeAvailableNotification`).
    ///
    /// A session that could not be stored while the device was locked (a refresh that completed
    /// in the background, with the keychain's default `whenUnlockedThisDeviceOnly`) is stored
    /// now. Nothing happens when everything is stored. ``setPhase(_:)`` with `.active`, the next
    /// ``session(minTTL:)`` and the next refresh try too.
    public func protectedDataDidBecomeAvailable() async {
        await saveUnsaved("protected_data_available")
    }

    /// Whether the newest session is in memory only, its write to the store having failed.
    /// It is stored again when protected data becomes available, when the app becomes active,
    /// and before any refresh; until then no refresh starts while its access token is valid.
    public var hasUnsavedSession: Bool { unsaved != nil }

    /// Stores the unsaved session, if any. Returns whether the store now holds the newest
    /// session (`true` when nothing was unsaved). Concurrent callers share one write; while a
    /// refresh or verification is in flight nothing is written here (it stores the session
    /// before it sends anything).
    @discardableResult
    func saveUnsaved(_ operation: String) async -> Bool {
        guard unsaved != nil else { return true }
        if let unsavedWrite { return await unsavedWrite.value }
        guard rotationInFlight.task == nil else { return false }
        let task = Task {
            defer { self.unsavedWrite = nil }
            return await self.writeUnsaved(operation)
        }
        unsavedWrite = task
        return await task.value
    }

    /// The write of ``saveUnsaved(_:)``: under the cross-process lock, after re-reading the
    /// store. Tokens another process stored since are newer than the unsaved ones (it could only
    /// have rotated what this process stored, or signed in): they are adopted, not overwritten.
    private func writeUnsaved(_ operation: String) async -> Bool {
        let lease: StoreLease?
        do {
            lease = try await lockStore(operation)
        } catch {
            return false
        }
        defer { lease?.release() }
        await commitLock.lock()
        guard unsaved != nil, let record, state.isSignedIn else {
            commitLock.unlock()
            return unsaved == nil
        }
        let generation = self.generation
        if lease != nil {
            switch await rereadStore(comparedTo: record, operation) {
            case .unchanged:
                break
            case .changed(let stored):
                unsaved = nil
                publishRenewed(stored, "adopted a session stored by another process")
                commitLock.unlock()
                return true
            case .signedOut:
                commitLock.unlock()
                await endSession(.signedOutElsewhere, ifGeneration: generation, wipeStore: false)
                return true
            }
        }
        let saved = await persist(record, under: lease, retrying: true) == nil
        if saved {
            unsaved = nil
            logger.info("stored the session that could not be stored earlier", metadata: metadata(operation))
            scheduleRefresh()
        }
        commitLock.unlock()
        return saved
    }

    /// While a session is unsaved: stores it; if it still cannot be stored and its access token
    /// has not expired, returns it, and the caller must not refresh (a second rotation the store
    /// misses would leave it two behind, which the server does not forgive). `nil`: refresh as
    /// usual (from the session in memory, the server's active one, when it is still unsaved).
    func sessionHeldBackByUnsavedWrite(_ operation: String) async -> Session? {
        guard unsaved != nil else { return nil }
        if await saveUnsaved(operation) { return nil }
        guard unsaved != nil, state.isSignedIn, let session = record?.session,
            !session.isExpired(at: clock.now())
        else { return nil }
        logger.notice("refresh held back: the newest session is not stored yet", metadata: metadata(operation))
        return session
    }

    /// Records that the store missed the newest session; `storeHolds` is the refresh token it
    /// holds instead (`nil`: none).
    func markUnsaved(storeHolds: String?, _ operation: String) {
        if unsaved == nil {
            logger.notice("session kept in memory until it can be stored", metadata: metadata(operation))
        }
        unsaved = UnsavedSession(storeHolds: storeHolds)
    }
}
