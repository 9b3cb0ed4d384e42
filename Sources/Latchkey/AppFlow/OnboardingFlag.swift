import Foundation

/// Whether the user has completed onboarding, kept in the app's ordinary preferences.
///
/// ``LaunchRouter`` reads it when it is created and remembers whether onboarding had been
/// completed before this launch: onboarding completed *during* a launch must not let a session
/// restored from the keychain skip the login screen (the reinstall bug of seed 001).
public struct OnboardingFlag: Sendable {
    /// The preference key. Default `"hasCompletedOnboarding"`, as the seed apps used.
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
