import Foundation
import Logging

/// A session the store does not hold yet: its write failed (on Apple platforms, typically a
/// keychain item of `whenUnlockedThisDeviceOnly` written while the device is locked).
///
/// The session in memory is then the newest of its refresh-token family, and the only copy of
/// it. The server forgives presenting the parent of its active refresh token, so a store one
/// rotation behind still signs the next launch in; a store two rotations behind does not (the
/// server reads the grandparent as a stolen token and revokes the whole family). So while a
/// session is unsaved, ``SessionManager`` stores it again at every opportunity and never rotates
/// it again until the store holds it: past its access token's expiry the user is signed in
/// offline (``AuthState/signedInOffline(_:)``), and the refresh runs once the write lands.
struct UnsavedSession: Sendable {
    /// The refresh token the store holds (as far as this process knows; `nil`: no session):
    /// what a re-read of the store must not mistake for another process's newer tokens.
    var storeHolds: String?
    /// Whether ``storeHolds`` is the parent of the session in memory (a refresh the store
    /// missed), rather than nothing or another family's token (a sign-in it missed).
    var storeHoldsParent: Bool
    /// Why the last write failed.
    var error: StorageError = .locked

    /// Whether rotating the session in memory would leave the store two rotations behind: it
    /// holds the parent of the session in memory. When it holds nothing of this family (a
    /// sign-in it refused), a rotation loses nothing more, and the session in memory is
    /// refreshed as usual.
    var forbidsRotation: Bool { storeHoldsParent }

    /// What a rotation refused for this reason throws.
    var failure: AuthFailure {
        AuthFailure(.storage(error), code: "session_not_stored", detail: "the newest session is not stored yet")
    }
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

    /// While a session is unsaved: stores it; if it still cannot be stored, returns it, and the
    /// caller must not refresh (a second rotation the store misses would leave it two behind,
    /// which the server does not forgive). A returned session whose access token has expired
    /// cannot be used for requests: the user is then signed in offline until the write lands.
    /// `nil`: refresh as usual (nothing unsaved, or the store holds no session at all, whose
    /// session in memory may be rotated: there is nothing more to lose).
    func sessionHeldBackByUnsavedWrite(_ operation: String) async -> Session? {
        guard unsaved != nil else { return nil }
        if await saveUnsaved(operation) { return nil }
        guard let unsaved, state.isSignedIn, let session = record?.session else { return nil }
        if !session.isExpired(at: clock.now()) {
            logger.notice("refresh held back: the newest session is not stored yet", metadata: metadata(operation))
            return session
        }
        guard unsaved.forbidsRotation else { return nil }
        holdExpiredUnsaved(session, operation)
        return session
    }

    /// The unsaved session's access token has expired and it must not be rotated: signed in
    /// offline, with the session kept in memory, until the store takes it.
    func holdExpiredUnsaved(_ session: Session, _ operation: String) {
        if case .signedIn = state {
            state = .signedInOffline(session)
            logger.notice(
                "signed in offline until the newest session can be stored; not refreshing it before then",
                metadata: metadata(operation))
        }
    }

    /// Records that the store missed the newest session; `storeHolds` is the refresh token it
    /// holds instead (`nil`: none), `parent` whether that token is the newest session's parent,
    /// `error` why the write failed.
    func markUnsaved(storeHolds: String?, parent: Bool, error: StorageError, _ operation: String) {
        if unsaved == nil {
            logger.notice("session kept in memory until it can be stored", metadata: metadata(operation))
        }
        unsaved = UnsavedSession(storeHolds: storeHolds, storeHoldsParent: parent && storeHolds != nil, error: error)
    }
}
