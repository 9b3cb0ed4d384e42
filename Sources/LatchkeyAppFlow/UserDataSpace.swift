import Crypto
import Foundation
import Latchkey
import Logging
import Observation

/// Where the app keeps each user's local data — databases, caches, downloads — so that one
/// account can never read another's, by construction rather than by query filters.
///
/// Each user gets a directory of their own, named after a hash of their user ID under
/// ``Configuration/root``. Only the signed-in user's directory is handed out (``area``); it is
/// opened when they sign in (or their session is restored) and closed when they sign out or
/// another account signs in. On sign-out the app chooses (``SignOutPolicy``) to keep it for the
/// same user's return or to wipe it. Data from before the app had accounts lives in a legacy
/// area, shown only while nobody is signed in, until one user claims it
/// (``claimLegacyData()``); after that it is theirs alone.
///
/// ```swift
/// let space = UserDataSpace(configuration: .init(root: appSupport.appendingPathComponent("Users"),
///                                                legacyDirectory: oldStoreDirectory))
/// space.addCloseHandler("database") { await database.close() }
/// await space.attach(to: manager)       // opens, closes and wipes with the session
/// if case .user(_, let directory) = space.area { database.open(at: directory) }
/// ```
@MainActor
@Observable
public final class UserDataSpace {
    /// What happens to a user's directory when they sign out.
    public enum SignOutPolicy: Sendable, Hashable {
        /// Keep it: the same user finds their data when they sign in again; other users never see it.
        case keep
        /// Delete every user's directory: nothing of theirs stays on the device.
        case wipe
    }

    /// Where the directories live and what sign-out does.
    public struct Configuration: Sendable {
        /// The folder holding one directory per user.
        public var root: URL
        /// The pre-accounts data folder. Default `nil`: `root/Legacy`.
        public var legacyDirectory: URL?
        /// What sign-out does to the user's directory. Default ``SignOutPolicy/keep``.
        public var signOutPolicy: SignOutPolicy

        /// A configuration; see the properties.
        public init(root: URL, legacyDirectory: URL? = nil, signOutPolicy: SignOutPolicy = .keep) {
            self.root = root
            self.legacyDirectory = legacyDirectory
            self.signOutPolicy = signOutPolicy
        }

        /// Where legacy data is.
        public var resolvedLegacyDirectory: URL {
            legacyDirectory ?? root.appendingPathComponent("Legacy", isDirectory: true)
        }
    }

    /// The data area the app should use now.
    public enum Area: Sendable, Hashable {
        /// Nobody is signed in and there is no legacy data.
        case none
        /// Nobody is signed in: the pre-accounts data (read it, or offer to claim it after sign-in).
        case legacy(URL)
        /// The signed-in user's own directory.
        case user(id: String, directory: URL)

        /// The directory of this area, if any.
        public var directory: URL? {
            switch self {
            case .none: nil
            case .legacy(let url), .user(_, let url): url
            }
        }
    }

    /// The user whose directory is open, or `nil`.
    public private(set) var currentUserID: String?
    /// Whether unclaimed legacy data exists (re-checked on every open, close and claim).
    public internal(set) var hasLegacyData = false

    /// The configuration this space was created with.
    @ObservationIgnored public let configuration: Configuration
    @ObservationIgnored let logger: Logger
    /// The user whose session just ended, not to be reopened by a late look at the manager.
    @ObservationIgnored var endedUserID: String?
    @ObservationIgnored var closeHandlers: [(name: String, body: @MainActor () async throws -> Void)] = []

    /// Creates a space; nothing is opened until a user signs in (``open(userID:)`` or
    /// ``attach(to:)``).
    public init(configuration: Configuration, logger: Logger = Logger(label: "dev.latchkey.dataspace")) {
        self.configuration = configuration
        self.logger = logger
        hasLegacyData = Self.containsItems(configuration.resolvedLegacyDirectory)
    }

    /// The area to use: the signed-in user's directory; with nobody signed in, the legacy data
    /// if there is any. Never another user's directory.
    public var area: Area {
        if let currentUserID {
            return .user(id: currentUserID, directory: directory(for: currentUserID))
        }
        return hasLegacyData ? .legacy(configuration.resolvedLegacyDirectory) : .none
    }

    /// Registers work to do before a directory closes (close the database, stop writers), in
    /// registration order; each runs even if an earlier one threw.
    public func addCloseHandler(_ name: String, _ body: @escaping @MainActor () async throws -> Void) {
        closeHandlers.append((name, body))
    }

    /// Opens `userID`'s directory (created, owner-only), closing another user's first.
    /// - Returns: The directory.
    @discardableResult
    public func open(userID: String) async throws -> URL {
        if let currentUserID, currentUserID != userID { await close() }
        let url = directory(for: userID)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        if currentUserID != userID {
            currentUserID = userID
            logger.debug("user data space opened", metadata: ["operation": "data_space", "user_id": "\(userID)"])
        }
        hasLegacyData = Self.containsItems(configuration.resolvedLegacyDirectory)
        return url
    }

    /// Closes the open directory: runs the close handlers, then nobody's data is handed out.
    public func close() async {
        guard let userID = currentUserID else { return }
        for handler in closeHandlers {
            do {
                try await handler.body()
            } catch {
                logger.error(
                    "data space close handler failed",
                    metadata: [
                        "operation": "data_space", "handler": "\(handler.name)", "error": "\(error)",
                    ])
            }
        }
        currentUserID = nil
        hasLegacyData = Self.containsItems(configuration.resolvedLegacyDirectory)
        logger.debug("user data space closed", metadata: ["operation": "data_space", "user_id": "\(userID)"])
    }

    /// Deletes every user's directory (closing the open one first). Legacy data is not touched.
    public func wipeAllUsers() async throws {
        await close()
        let users = configuration.root.appendingPathComponent("Users", isDirectory: true)
        guard FileManager.default.fileExists(atPath: users.path) else { return }
        // Out of sight at once, then deleted off the main actor.
        let trash = configuration.root.appendingPathComponent(".wiped-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.moveItem(at: users, to: trash)
        try await Task.detached { try FileManager.default.removeItem(at: trash) }.value
        logger.info("user data wiped", metadata: ["operation": "data_space"])
    }

    /// The directory of `userID`: `root/Users/<SHA-256 of the ID>`, so no ID can name a path
    /// outside the root or another user's directory.
    func directory(for userID: String) -> URL {
        let digest = SHA256.hash(data: Data(userID.utf8)).prefix(16).map { String(format: "%02x", $0) }.joined()
        return configuration.root.appendingPathComponent("Users", isDirectory: true)
            .appendingPathComponent(digest, isDirectory: true)
    }

    static func containsItems(_ directory: URL) -> Bool {
        let items = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        return !items.isEmpty
    }
}

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
        logger.info(
            "legacy data claimed",
            metadata: [
                "operation": "data_space", "user_id": "\(userID)", "items": "\(items.count)",
            ])
        return items
    }
}
