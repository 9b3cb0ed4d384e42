import Foundation

/// Remembers that the app has run on this installation, in storage that an uninstall erases.
///
/// The keychain survives an uninstall; the app's preferences do not. So "marker missing,
/// credentials present" at launch means a reinstall found stale credentials, and
/// ``SessionManager`` wipes them instead of signing a user in who expects a fresh start.
public protocol InstallMarker: Sendable {
    /// Whether the marker is set.
    func isSet() async throws -> Bool
    /// Sets the marker.
    func set() async throws
}

/// An install marker in `UserDefaults`: the right choice on Apple platforms, where an
/// uninstall erases the app's defaults but not its keychain items.
public struct UserDefaultsInstallMarker: InstallMarker {
    /// The defaults suite (`nil` for the standard defaults, or an app-group suite).
    public let suiteName: String?
    /// The key of the marker.
    public let key: String

    public init(suiteName: String? = nil, key: String = "dev.latchkey.installed") {
        self.suiteName = suiteName
        self.key = key
    }

    private var defaults: UserDefaults {
        suiteName.flatMap { UserDefaults(suiteName: $0) } ?? .standard
    }

    public func isSet() async throws -> Bool {
        defaults.bool(forKey: key)
    }

    public func set() async throws {
        defaults.set(true, forKey: key)
    }
}

/// An install marker as an empty file, for Linux and command-line programs: put it in the
/// program's configuration directory, which is removed with the program's data.
public struct FileInstallMarker: InstallMarker {
    /// Where the marker file lives.
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    public func isSet() async throws -> Bool {
        FileManager.default.fileExists(atPath: url.path)
    }

    public func set() async throws {
        try AtomicFile.write(Data(), to: url)
    }
}

/// An install marker in memory, for tests and previews.
public actor MemoryInstallMarker: InstallMarker {
    private var value: Bool

    public init(isSet: Bool = false) {
        value = isSet
    }

    public func isSet() async throws -> Bool { value }
    public func set() async throws { value = true }
    /// Clears the marker, as an uninstall would.
    public func clear() { value = false }
}
