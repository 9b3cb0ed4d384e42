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

/// An install marker in `UserDefaults`, for macOS and for apps that are never launched in the
/// background (on iOS prefer ``FileInstallMarker/standard``).
///
/// An uninstall erases the app's defaults but not its keychain items. Before the first unlock
/// after a reboot the defaults read as empty, which would look like a reinstall. So when the
/// marker reads unset, ``protectedData`` is asked whether the defaults can be read at all; if
/// not, ``isSet()`` throws ``StorageError/locked`` ("cannot tell now"). And because a process
/// that read its defaults then can keep that empty copy after the unlock, a process that once
/// saw protected data unavailable (``history``) never reports "not set": ``isSet()`` throws
/// ``StorageError/locked`` for the rest of that process, and the reinstall check waits for the
/// next launch.
public struct UserDefaultsInstallMarker: InstallMarker {
    /// The defaults suite (`nil` for the standard defaults, or an app-group suite).
    public let suiteName: String?
    /// The key of the marker.
    public let key: String
    /// Whether the defaults can be read now. Default ``FirstUnlockProbe/standard``.
    public let protectedData: any ProtectedDataAvailability
    /// Whether protected data was ever unavailable in this process. Default
    /// ``ProtectedDataHistory/process``.
    public let history: ProtectedDataHistory

    public init(
        suiteName: String? = nil, key: String = "dev.latchkey.installed",
        protectedData: any ProtectedDataAvailability = FirstUnlockProbe.standard,
        history: ProtectedDataHistory = .process
    ) {
        self.suiteName = suiteName
        self.key = key
        self.protectedData = protectedData
        self.history = history
    }

    private var defaults: UserDefaults {
        suiteName.flatMap { UserDefaults(suiteName: $0) } ?? .standard
    }

    public func isSet() async throws -> Bool {
        let readable = history.isAvailable(protectedData)
        if defaults.bool(forKey: key) { return true }
        // Unreadable now, or possibly a copy read while it was: "cannot tell", never "not set".
        guard readable, !history.wasEverUnavailable else { throw StorageError.locked }
        return false
    }

    public func set() async throws {
        // Never write defaults that cannot be read: the write could be lost, or replace them.
        guard history.isAvailable(protectedData) else { throw StorageError.locked }
        defaults.set(true, forKey: key)
    }
}

/// An install marker as an empty file: the choice on Apple platforms (``standard``, in the app's
/// container, which an uninstall erases while the keychain stays), and on Linux and for
/// command-line programs (in the program's configuration directory).
///
/// Whether a file exists can be told even before the first unlock after a reboot (file names are
/// not protected, only contents), and every ``isSet()`` asks the file system again, so this
/// marker never has to answer "cannot tell" on a locked device, and never believes a stale copy
/// (`UserDefaults` can keep one: see ``UserDefaultsInstallMarker``). Setting it before the first
/// unlock fails (a new file cannot be created then) and is tried again at the next launch
/// decision. A directory that cannot be searched throws rather than reading as "not set".
///
/// An app that shipped an earlier release with another marker moves to this one with
/// ``migrating(from:)``: a missing file is then not a fresh install while the earlier marker is
/// set (the file is written, once), and "cannot tell" while the earlier marker cannot tell.
///
/// On tvOS, which keeps no persistent local files (it may purge Application Support and
/// caches; only a small `UserDefaults` and iCloud persist), ``standard`` keeps the marker in
/// `UserDefaults` and never reads a missing marker as a reinstall: a purged or missing marker
/// with a surviving keychain keeps the session. There a reinstall is not detected.
public struct FileInstallMarker: InstallMarker {
    /// Where the marker file lives.
    public let url: URL
    /// Markers an earlier release kept, consulted while the file is missing.
    let earlier: [any InstallMarker]
    /// tvOS: where the marker is kept instead of the file (``standard``); a missing one is read
    /// as set.
    let defaultsKey: String?

    public init(url: URL) {
        self.init(url: url, earlier: [], defaultsKey: nil)
    }

    init(url: URL, earlier: [any InstallMarker], defaultsKey: String?) {
        self.url = url
        self.earlier = earlier
        self.defaultsKey = defaultsKey
    }

    /// The marker in the app's Application Support directory: `Application
    /// Support/dev.latchkey/installed`, or on macOS `Application Support/<bundle
    /// identifier>/dev.latchkey/installed` (outside the sandbox Application Support is shared by
    /// every app of the user). A marker an earlier release kept at the macOS path shared by every
    /// app (`Application Support/dev.latchkey/installed`) counts as set. On tvOS: in
    /// `UserDefaults`, never read as missing (see above). An app whose extensions share its
    /// credentials puts the marker in the app group's container instead, with ``init(url:)``.
    public static var standard: FileInstallMarker {
        #if os(tvOS)
        return FileInstallMarker(
            url: ApplicationSupport.latchkeyFile("installed"), earlier: [], defaultsKey: "dev.latchkey.installed")
        #else
        let earlier = ApplicationSupport.legacyLatchkeyFile("installed").map { [FileInstallMarker(url: $0)] } ?? []
        return FileInstallMarker(url: ApplicationSupport.latchkeyFile("installed"), earlier: earlier, defaultsKey: nil)
        #endif
    }

    /// This marker, taking over from `earlier`, the marker an earlier release of the app used
    /// (typically ``UserDefaultsInstallMarker``): while the file is missing, `earlier` is asked;
    /// set there means set (the file is written then, so it is asked only once), "cannot tell"
    /// there (before the first unlock) means "cannot tell" here. Never a fresh install while the
    /// earlier marker says otherwise.
    public func migrating(from earlier: any InstallMarker) -> FileInstallMarker {
        FileInstallMarker(url: url, earlier: self.earlier + [earlier], defaultsKey: defaultsKey)
    }

    public func isSet() async throws -> Bool {
        if defaultsKey != nil {
            // tvOS may purge files and keeps no other local storage: a missing marker is never
            // a reinstall there.
            return true
        }
        var info = stat()
        if stat(url.path, &info) == 0 { return true }
        let code = errno
        guard code == ENOENT || code == ENOTDIR else { throw AtomicFile.error(code, "stat install marker") }
        for marker in earlier {
            guard try await marker.isSet() else { continue }
            // Migrate once; if the file cannot be written now, the earlier marker still answers.
            try? await set()
            return true
        }
        return false
    }

    public func set() async throws {
        if let defaultsKey {
            UserDefaults.standard.set(true, forKey: defaultsKey)
            return
        }
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
