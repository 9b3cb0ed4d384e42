import Foundation
import Latchkey

/// The app's ordinary preferences: small flags the app flow models remember between launches
/// (onboarding completed, biometric unlock enabled, the one-time Face ID hint shown).
///
/// They belong in storage that an uninstall erases (`UserDefaults` on Apple platforms), unlike
/// the keychain: that is what makes a reinstall look like a fresh install to the launch router.
/// Inject ``MemoryPreferences`` in tests and previews.
public protocol AppPreferences: Sendable {
    /// The flag stored under `key`; `false` when nothing is stored.
    func bool(forKey key: String) -> Bool
    /// Stores `value` under `key`.
    func set(_ value: Bool, forKey key: String)
}

/// Preferences in `UserDefaults`: the standard defaults, or an app-group suite shared with
/// extensions.
public struct UserDefaultsPreferences: AppPreferences {
    /// The defaults suite, or `nil` for the standard defaults.
    public let suiteName: String?

    /// Uses the suite named `suiteName` (`nil`: the standard defaults).
    public init(suiteName: String? = nil) {
        self.suiteName = suiteName
    }

    private var defaults: UserDefaults {
        suiteName.flatMap { UserDefaults(suiteName: $0) } ?? .standard
    }

    public func bool(forKey key: String) -> Bool {
        defaults.bool(forKey: key)
    }

    public func set(_ value: Bool, forKey key: String) {
        defaults.set(value, forKey: key)
    }
}

/// Preferences in memory: for tests, previews, and "forget everything at exit".
/// ``wipe()`` erases them as an uninstall would.
public final class MemoryPreferences: AppPreferences, @unchecked Sendable {
    /// Guards `values`, which preferences read and write from any thread.
    private let lock = NSLock()
    private var values: [String: Bool]

    /// Starts with `values`.
    public init(_ values: [String: Bool] = [:]) {
        self.values = values
    }

    public func bool(forKey key: String) -> Bool {
        lock.withLock { values[key] ?? false }
    }

    public func set(_ value: Bool, forKey key: String) {
        lock.withLock { values[key] = value }
    }

    /// Erases every flag, as deleting the app erases its defaults.
    public func wipe() {
        lock.withLock { values.removeAll() }
    }
}

/// Whether the user has completed onboarding, kept in the app's ordinary preferences.
///
/// ``LaunchRouter`` reads it when it is created and remembers whether onboarding had been
/// completed before this launch: onboarding completed *during* a launch must not let a session
/// restored from the keychain skip the login screen after a reinstall.
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

    /// Whether onboarding has been completed on this installation.
    public var isCompleted: Bool {
        preferences.bool(forKey: key)
    }

    /// Records that onboarding is completed (or, with `false`, resets it: "show the tour again").
    public func setCompleted(_ completed: Bool = true) {
        preferences.set(completed, forKey: key)
    }
}
