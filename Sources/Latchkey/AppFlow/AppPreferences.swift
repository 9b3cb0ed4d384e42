import Foundation

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
public final class MemoryPreferences: AppPreferences {
    private let values: LockedValue<[String: Bool]>

    /// Starts with `values`.
    public init(_ values: [String: Bool] = [:]) {
        self.values = LockedValue(values)
    }

    public func bool(forKey key: String) -> Bool {
        values.withLock { $0[key] ?? false }
    }

    public func set(_ value: Bool, forKey key: String) {
        values.withLock { $0[key] = value }
    }

    /// Erases every flag, as deleting the app erases its defaults.
    public func wipe() {
        values.withLock { $0.removeAll() }
    }
}
