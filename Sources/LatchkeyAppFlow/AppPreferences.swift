import Foundation
import Latchkey

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The app's ordinary preferences: small flags the app flow models remember between launches
/// (onboarding completed, biometric unlock enabled, the one-time Face ID hint shown).
///
/// They belong in storage that an uninstall erases (the app's container on Apple platforms),
/// unlike the keychain: that is what makes a reinstall look like a fresh install to the launch
/// router. On Apple platforms use ``FilePreferences/standard``; inject ``MemoryPreferences`` in
/// tests and previews.
///
/// Before the first unlock after a reboot, iOS may launch the app in the background while its
/// `UserDefaults` cannot be read: every flag there then reads `false`. ``isAvailable`` says so,
/// and the models do not believe those `false`s: the router decides no screen and signs no one
/// out, the app lock stays locked, and both read the flags again when the app becomes active.
/// ``FilePreferences`` is never unavailable that way: whether a file exists can be told before
/// the first unlock.
public protocol AppPreferences: Sendable {
    /// The flag stored under `key`; `false` when nothing is stored (or nothing can be read).
    func bool(forKey key: String) -> Bool
    /// Stores `value` under `key`.
    func set(_ value: Bool, forKey key: String)
    /// Whether the preferences can be read now: `false` before the first unlock after a reboot.
    ///
    /// There is no default: a store kept on disk must answer for itself (a custom store that
    /// answered `true` while locked would have its empty `false`s believed: a reinstall
    /// detected, the lock opened).
    var isAvailable: Bool { get }
}

/// Preferences as files, one per flag: a flag is `true` exactly when an empty file named after
/// its key exists in ``directory``. The choice on Apple platforms.
///
/// Whether a file exists can be told even before the first unlock after a reboot (file names are
/// not protected, only contents), and every read asks the file system again, so these flags
/// never read as a stale `false`, as `UserDefaults` can in a process that started before the
/// first unlock (and keeps the empty copy it read then). This is Apple's advice for flags that
/// code running in the background relies on: keep them out of `UserDefaults`. ``isAvailable``
/// is `false` only while ``directory`` cannot be searched. Setting a flag before the first
/// unlock does nothing (no file can be created then); no one can use the app then anyway.
///
/// An app that shipped an earlier release with ``UserDefaultsPreferences`` moves here with
/// ``migrating(from:keys:)``: the earlier flags are copied once, as soon as they can be read.
///
/// On tvOS, which keeps no persistent local files (it may purge Application Support; only a
/// small `UserDefaults` and iCloud persist, and there is no "before the first unlock"),
/// ``standard`` keeps the flags in the standard `UserDefaults` instead.
public struct FilePreferences: AppPreferences {
    /// The directory of the flag files (created when a flag is first set).
    public let directory: URL
    /// The preferences an earlier release kept, and the keys to copy from them once.
    let earlier: (preferences: any AppPreferences, keys: [String])?
    /// tvOS (``standard``): the flags are kept in the standard `UserDefaults` instead.
    let keepsFlagsInDefaults: Bool

    /// Flags in `directory`, which belongs to the app's container (an uninstall must erase it).
    public init(directory: URL) {
        self.init(directory: directory, earlier: nil, keepsFlagsInDefaults: false)
    }

    init(directory: URL, earlier: (preferences: any AppPreferences, keys: [String])?, keepsFlagsInDefaults: Bool) {
        self.directory = directory
        self.earlier = earlier
        self.keepsFlagsInDefaults = keepsFlagsInDefaults
    }

    /// The flags in the app's Application Support directory: `Application
    /// Support/dev.latchkey/preferences`, or on macOS `Application Support/<bundle
    /// identifier>/dev.latchkey/preferences` (outside the sandbox Application Support is shared
    /// by every app of the user; flags an earlier release kept at the shared
    /// `Application Support/dev.latchkey/preferences` are copied once). On tvOS: the standard
    /// `UserDefaults`.
    public static var standard: FilePreferences {
        let directory = ApplicationSupport.latchkeyFile("preferences")
        #if os(tvOS)
        return FilePreferences(directory: directory, earlier: nil, keepsFlagsInDefaults: true)
        #else
        guard let legacy = ApplicationSupport.legacyLatchkeyFile("preferences") else { return FilePreferences(directory: directory) }
        return FilePreferences(directory: directory)
            .migrating(from: FilePreferences(directory: legacy), keys: FilePreferences.appFlowKeys)
        #endif
    }

    /// The keys LatchkeyAppFlow's models keep by default: the onboarding flag, and the app
    /// lock's "enabled" and "hint shown" (the passkey offer's per-user flags are not copied:
    /// at worst the offer is shown once more).
    public static let appFlowKeys: [String] = [
        OnboardingFlag.defaultKey, "biometricUnlockEnabled", "hasShownBiometricHint",
    ]

    /// These preferences, taking over from `earlier` (typically the ``UserDefaultsPreferences``
    /// an earlier release of the app used): the flags of `keys` that are `true` there are copied
    /// here once, the first time `earlier` can be read (never while it cannot: before the first
    /// unlock, or in a process that may hold a stale copy of the defaults). Until then
    /// ``isAvailable`` is `false`, so a `false` read here is not believed — the onboarding flag
    /// does not send a signed-in user back to the tour, the app lock stays locked — while a
    /// `true` read in either place is. Add your own keys to ``appFlowKeys``.
    public func migrating(from earlier: any AppPreferences, keys: [String] = FilePreferences.appFlowKeys) -> FilePreferences {
        FilePreferences(directory: directory, earlier: (earlier, keys), keepsFlagsInDefaults: keepsFlagsInDefaults)
    }

    /// The file recording that the earlier preferences were copied (no key's file has this
    /// name: keys never start with `.` once encoded).
    var migratedMarker: URL { directory.appendingPathComponent(".migrated") }

    /// Copies the earlier flags once, when they can be read. Returns whether the migration is
    /// done (or there is none).
    @discardableResult
    func migrateIfNeeded() -> Bool {
        guard let earlier, !keepsFlagsInDefaults else { return true }
        var info = stat()
        if stat(migratedMarker.path, &info) == 0 { return true }
        guard earlier.preferences.isAvailable else { return false }
        for key in earlier.keys where earlier.preferences.bool(forKey: key) {
            guard (try? AtomicFile.write(Data(), to: url(forKey: key))) != nil else { return false }
        }
        return (try? AtomicFile.write(Data(), to: migratedMarker)) != nil
    }

    /// The file of `key`: letters, digits, `-` and `_` as they are, every other byte as `%XX`
    /// (so no key names a hidden file, a folder or another key's file).
    func url(forKey key: String) -> URL {
        var name = ""
        for byte in key.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                name.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                name += "%" + String(byte, radix: 16, uppercase: true).leftPadded(to: 2)
            }
        }
        return directory.appendingPathComponent(name.isEmpty ? "%" : name)
    }

    public func bool(forKey key: String) -> Bool {
        if keepsFlagsInDefaults { return UserDefaults.standard.bool(forKey: key) }
        var info = stat()
        if stat(url(forKey: key).path, &info) == 0 { return true }
        guard let earlier, earlier.keys.contains(key) else { return false }
        // Not copied yet: a `true` there is believed (an unreadable store never reads `true`).
        if migrateIfNeeded() { return stat(url(forKey: key).path, &info) == 0 }
        return earlier.preferences.bool(forKey: key)
    }

    public func set(_ value: Bool, forKey key: String) {
        if keepsFlagsInDefaults {
            UserDefaults.standard.set(value, forKey: key)
            return
        }
        // Copy first, so an earlier `true` never overrides this write later.
        migrateIfNeeded()
        let file = url(forKey: key)
        if value {
            try? AtomicFile.write(Data(), to: file)
        } else {
            unlink(file.path)
        }
    }

    public var isAvailable: Bool {
        if keepsFlagsInDefaults { return true }
        var info = stat()
        if stat(directory.path, &info) != 0 {
            // No directory yet: no flag was ever set. Anything else: cannot tell.
            guard errno == ENOENT || errno == ENOTDIR else { return false }
        }
        return migrateIfNeeded()
    }
}

extension String {
    fileprivate func leftPadded(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}

/// Preferences in `UserDefaults`: the standard defaults, or an app-group suite shared with
/// extensions. For macOS, and apps never launched in the background; on iOS prefer
/// ``FilePreferences``.
///
/// ``isAvailable`` asks ``protectedData`` whether data protected until the first unlock (as
/// the defaults are) can be read; while it cannot, nothing is written either, so values that
/// could not be read are never replaced. A process that once saw it unavailable (``history``)
/// may keep the empty copy of the defaults it read then, and `UserDefaults` cannot be made to
/// read them from disk again: there ``isAvailable`` stays `false` for the rest of the process
/// (the models believe only the flags that read `true`), and writes are still made.
public struct UserDefaultsPreferences: AppPreferences {
    /// The defaults suite, or `nil` for the standard defaults.
    public let suiteName: String?
    /// Whether the defaults can be read now. Default `FirstUnlockProbe.standard`.
    public let protectedData: any ProtectedDataAvailability
    /// Whether protected data was ever unavailable in this process. Default
    /// `ProtectedDataHistory.process`.
    public let history: ProtectedDataHistory

    /// Uses the suite named `suiteName` (`nil`: the standard defaults).
    public init(
        suiteName: String? = nil, protectedData: any ProtectedDataAvailability = FirstUnlockProbe.standard,
        history: ProtectedDataHistory = .process
    ) {
        self.suiteName = suiteName
        self.protectedData = protectedData
        self.history = history
    }

    private var defaults: UserDefaults {
        suiteName.flatMap { UserDefaults(suiteName: $0) } ?? .standard
    }

    public func bool(forKey key: String) -> Bool {
        defaults.bool(forKey: key)
    }

    public func set(_ value: Bool, forKey key: String) {
        guard history.isAvailable(protectedData) else { return }
        defaults.set(value, forKey: key)
    }

    public var isAvailable: Bool {
        history.isAvailable(protectedData) && !history.wasEverUnavailable
    }
}

/// Preferences in memory: for tests, previews, and "forget everything at exit".
/// ``wipe()`` erases them as an uninstall would; ``isAvailable`` set to `false` makes them
/// unreadable as a device's preferences are before the first unlock after a reboot.
public final class MemoryPreferences: AppPreferences, @unchecked Sendable {
    /// Guards `values` and `available`, which preferences read and write from any thread.
    private let lock = NSLock()
    private var values: [String: Bool]
    private var available = true

    /// Starts with `values`.
    public init(_ values: [String: Bool] = [:]) {
        self.values = values
    }

    public func bool(forKey key: String) -> Bool {
        lock.withLock { available ? values[key] ?? false : false }
    }

    public func set(_ value: Bool, forKey key: String) {
        lock.withLock {
            guard available else { return }
            values[key] = value
        }
    }

    /// Whether the flags can be read. While `false`, every flag reads `false` and writes are
    /// dropped, as with `UserDefaults` before the first unlock; the stored flags come back when
    /// it is `true` again.
    public var isAvailable: Bool {
        get { lock.withLock { available } }
        set { lock.withLock { available = newValue } }
    }

    /// Erases every flag, as deleting the app erases its defaults.
    public func wipe() {
        lock.withLock { values.removeAll() }
    }
}

/// Whether the user has completed onboarding, kept in the app's ordinary preferences.
///
/// ``LaunchRouter`` reads it when it is created, when it starts and whenever the app becomes
/// active, and remembers whether onboarding had been completed before this launch: onboarding
/// completed *during* a launch must not let a session restored from the keychain skip the login
/// screen after a reinstall. While the preferences cannot be read (``isCompletedIfReadable`` is
/// `nil`), the router waits instead of believing a `false`.
public struct OnboardingFlag: Sendable {
    /// The preference key. Default `"hasCompletedOnboarding"`.
    public static let defaultKey = "hasCompletedOnboarding"

    /// Where the flag lives.
    public let preferences: any AppPreferences
    /// The key under which it lives.
    public let key: String

    /// A flag stored in `preferences` under `key`.
    public init(preferences: any AppPreferences, key: String = OnboardingFlag.defaultKey) {
        self.preferences = preferences
        self.key = key
    }

    /// Whether onboarding has been completed on this installation (`false` also when the
    /// preferences cannot be read now: see ``isCompletedIfReadable``).
    public var isCompleted: Bool {
        preferences.bool(forKey: key)
    }

    /// Whether onboarding has been completed, or `nil` when it reads "not completed" while the
    /// preferences cannot be read now (before the first unlock after a reboot) or may be a stale
    /// copy read then.
    public var isCompletedIfReadable: Bool? {
        // A stored `true` is believed whenever it is read: unreadable preferences read `false`.
        if preferences.bool(forKey: key) { return true }
        return preferences.isAvailable ? false : nil
    }

    /// Records that onboarding is completed (or, with `false`, resets it: "show the tour again").
    public func setCompleted(_ completed: Bool = true) {
        preferences.set(completed, forKey: key)
    }
}
