import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Remembers that the app has run on this installation, in storage that an uninstall erases.
///
/// The keychain survives an uninstall; the app's preferences do not. So "marker missing,
/// credentials present" at launch means a reinstall found stale credentials, and
/// ``SessionManager`` wipes them instead of signing a user in who expects a fresh start.
///
/// "Not set" must be certain, because it leads to a wipe. When the marker cannot be read now —
/// before the first unlock after a reboot, the app's preferences read as empty — ``isSet()``
/// throws instead of returning `false`, and ``SessionManager/restore()`` decides nothing: it
/// wipes nothing, reports ``SignOutReason/storageFailure(_:)`` and decides again when the app
/// becomes active.
public protocol InstallMarker: Sendable {
    /// Whether the marker is set.
    /// - Throws: When it cannot tell now (``StorageError/locked`` before the first unlock, or
    ///   any other ``StorageError``). Never return `false` unless the marker is known to be unset.
    func isSet() async throws -> Bool
    /// Sets the marker.
    func set() async throws
}

/// An install marker in `UserDefaults`: the right choice on Apple platforms, where an
/// uninstall erases the app's defaults but not its keychain items.
///
/// Before the first unlock after a reboot the defaults read as empty, which would look like a
/// reinstall. So when the marker reads unset, ``protectedData`` is asked whether the defaults
/// can be read at all; if not, ``isSet()`` throws ``StorageError/locked`` ("cannot tell now").
public struct UserDefaultsInstallMarker: InstallMarker {
    /// The defaults suite (`nil` for the standard defaults, or an app-group suite).
    public let suiteName: String?
    /// The key of the marker.
    public let key: String
    /// Whether the defaults can be read now. Default ``FirstUnlockProbe/standard``.
    public let protectedData: any ProtectedDataAvailability

    public init(
        suiteName: String? = nil, key: String = "dev.latchkey.installed",
        protectedData: any ProtectedDataAvailability = FirstUnlockProbe.standard
    ) {
        self.suiteName = suiteName
        self.key = key
        self.protectedData = protectedData
    }

    private var defaults: UserDefaults {
        suiteName.flatMap { UserDefaults(suiteName: $0) } ?? .standard
    }

    public func isSet() async throws -> Bool {
        let readable = protectedData.isAvailable()
        if defaults.bool(forKey: key) { return true }
        guard readable else { throw StorageError.locked }
        return false
    }

    public func set() async throws {
        // Never write defaults that cannot be read: the write could be lost, or replace them.
        guard protectedData.isAvailable() else { throw StorageError.locked }
        defaults.set(true, forKey: key)
    }
}

/// An install marker as an empty file, for Linux and command-line programs: put it in the
/// program's configuration directory, which is removed with the program's data.
///
/// Whether a file exists can be told even before the first unlock after a reboot (file names are
/// not protected, only contents), so on iOS this marker, kept in the app's container, never has
/// to answer "cannot tell". A directory that cannot be searched throws rather than reading as
/// "not set".
public struct FileInstallMarker: InstallMarker {
    /// Where the marker file lives.
    public let url: URL

    public init(url: URL) {
        self.url = url
    }

    public func isSet() async throws -> Bool {
        var info = stat()
        if stat(url.path, &info) == 0 { return true }
        let code = errno
        if code == ENOENT || code == ENOTDIR { return false }
        throw AtomicFile.error(code, "stat install marker")
    }

    public func set() async throws {
        try AtomicFile.write(Data(), to: url)
    }
}

/// An install marker in memory, for tests and previews.
public actor MemoryInstallMarker: InstallMarker {
    private var value: Bool
    private var readable = true

    public init(isSet: Bool = false) {
        value = isSet
    }

    public func isSet() async throws -> Bool {
        guard readable else { throw StorageError.locked }
        return value
    }

    public func set() async throws {
        guard readable else { throw StorageError.locked }
        value = true
    }

    /// Clears the marker, as an uninstall would.
    public func clear() { value = false }

    /// While `false`, the marker cannot be read or written (``isSet()`` and ``set()`` throw
    /// ``StorageError/locked``), as before the first unlock after a reboot.
    public func setReadable(_ readable: Bool) { self.readable = readable }
}
