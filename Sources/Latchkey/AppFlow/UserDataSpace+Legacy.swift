import Foundation
import Logging

/// Why a data-space operation failed.
public enum UserDataSpaceError: Error, Sendable, Hashable {
    /// No user's directory is open (nobody is signed in).
    case notOpen
    /// These legacy items have the same names as items the user already has; nothing was moved.
    case claimConflict([String])
}

extension UserDataSpace {
    /// Moves the legacy (pre-accounts) data into the signed-in user's directory. Afterwards it is
    /// theirs alone: it leaves the legacy area, so nobody else — signed in or not — sees it.
    ///
    /// All or nothing: when an item of the same name already exists in the user's directory,
    /// nothing moves and ``UserDataSpaceError/claimConflict(_:)`` names the items (merge them
    /// with the app's own logic, then claim again).
    /// - Returns: The names of the items moved (empty when there was no legacy data).
    /// - Throws: ``UserDataSpaceError`` or a file-system error.
    @discardableResult
    public func claimLegacyData() throws -> [String] {
        guard let userID = currentUserID else { throw UserDataSpaceError.notOpen }
        let legacy = configuration.resolvedLegacyDirectory
        let destination = directory(for: userID)
        let fileManager = FileManager.default
        let items = ((try? fileManager.contentsOfDirectory(atPath: legacy.path)) ?? []).sorted()
        guard !items.isEmpty else {
            hasLegacyData = false
            return []
        }
        let conflicts = items.filter { fileManager.fileExists(atPath: destination.appendingPathComponent($0).path) }
        guard conflicts.isEmpty else { throw UserDataSpaceError.claimConflict(conflicts) }
        for item in items {
            try fileManager.moveItem(at: legacy.appendingPathComponent(item), to: destination.appendingPathComponent(item))
        }
        hasLegacyData = Self.containsItems(legacy)
        logger.info("legacy data claimed", metadata: [
            "operation": "data_space", "user_id": "\(userID)", "items": "\(items.count)",
        ])
        return items
    }
}
