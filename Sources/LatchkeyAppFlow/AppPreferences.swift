import Foundation
import Latchkey

/// The app's ordinary preferences: small flags the app flow models remember between launches
/// (onboarding completed, biometric unlock enabled, the one-time Face ID hint shown).
///
/// They belong in storage that an uninstall erases (`UserDefaults` on Apple platforms), unlike
/// the keychain: that is what makes a reinstall look like a fresh install to the launch router.
/// Inject ``MemoryPreferences`` in tests and previews.
///
/// Before the first unlock after a reboot, iOS may launch the app in the background while its
/// preferences cannot be read: every flag then reads `false`. ``isAvailable`` says so, and the
/// models do not believe those `false`s: the router decides no screen and signs no one out, the
/// app lock stays locked, and both read the flags again when the app becomes active.
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

/// Preferences in `UserDefaults`: the standard defaults, or an app-group suite shared with
/// extensions.
///
/// ``isAvailable`` asks ``protectedData`` whether data protected until the first unlock (as
/// the defaults are) can be read; while it cannot, nothing is written either, so values that
/// could not be read are never replaced.
public struct UserDefaultsPreferences: AppPreferences {
    /// The defaults suite, or `nil` for the standard defaults.
    public let suiteName: String?
    /// Whether the defaults can be read now. Default `FirstUnlockProbe.standard`.
    public let protectedData: any ProtectedDataAvailability

    /// Uses the suite named `suiteName` (`nil`: the standard defaults).
    public init(suiteName: String? = nil, protectedData: any ProtectedDataAvailability = FirstUnlockProbe.standard) {
        self.suiteName = suiteName
        self.protectedData = protectedData
    }

    private var defaults: UserDefaults {
        suiteName.flatMap { UserDefaults(suiteName: $0) } ?? .standard
    }

    public func bool(forKey key: String) -> Bool {
        defaults.bool(forKey: key)
    }

    public func set(_ value: Bool, forKey key: String) {
        guard protectedData.isAvailable() else { return }
        defaults.set(value, forKey: key)
    }

    public var isAvailable: Bool {
        protectedData.isAvailable()
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

    /// Whether onboarding has been completed, or `nil` when the preferences cannot be read now
    /// (before the first unlock after a reboot).
    public var isCompletedIfReadable: Bool? {
        preferences.isAvailable ? preferences.bool(forKey: key) : nil
    }

    /// Records that onboarding is completed (or, with `false`, resets it: "show the tour again").
    public func setCompleted(_ completed: Bool = true) {
        preferences.set(completed, forKey: key)
    }
}
