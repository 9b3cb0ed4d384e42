import Foundation
import Latchkey
import Logging

extension UserDataSpace {
    /// The name of the cleanup step ``attach(to:)`` registers.
    public static let cleanupStepName = "user-data-space"

    /// Follows `manager`: opens the signed-in user's directory (at launch, on sign-in), and
    /// registers a sign-out cleanup step that closes it and, with ``SignOutPolicy/wipe``, wipes
    /// every user's data. Switching accounts runs that step before the new user's directory
    /// opens, so the previous user's open files are closed first. Call once.
    public func attach(to manager: SessionManager) async {
        await manager.addCleanupStep(Self.cleanupStepName) { [weak self] in
            try await self?.endSession()
        }
        let events = manager.events()
        Task { [weak self, weak manager] in
            for await _ in events {
                guard let self, let manager else { return }
                await self.synchronize(with: manager)
            }
        }
        await synchronize(with: manager)
    }

    /// The sign-out cleanup step: close, and wipe if the policy says so.
    func endSession() async throws {
        endedUserID = currentUserID
        await close()
        if configuration.signOutPolicy == .wipe {
            try await wipeAllUsers()
        }
    }

    /// Opens the directory of whoever the manager says is signed in now, or closes it.
    ///
    /// Reads the manager's current state rather than trusting an event's payload, so a late
    /// event never reopens a signed-out user's data. A user whose session just ended (cleanup
    /// ran while the manager still held their session, as when switching accounts) is not
    /// reopened until the manager shows someone else or nobody.
    func synchronize(with manager: SessionManager) async {
        let state = await manager.state
        guard let userID = state.session?.user.id else {
            endedUserID = nil
            if state != .unknown { await close() }
            return
        }
        if userID == endedUserID { return }
        endedUserID = nil
        guard currentUserID != userID else { return }
        do {
            try await open(userID: userID)
        } catch {
            logger.error("cannot open user data space", metadata: ["operation": "data_space", "error": "\(error)"])
        }
    }
}
