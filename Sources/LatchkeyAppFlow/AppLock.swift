import Foundation
import Latchkey
import Logging
import Observation

/// The biometric app lock: engages when the app goes to the background, unlocks with Face ID
/// (or Touch ID, Optic ID), with an explicit "Use Passcode" fallback.
///
/// Timing: only `background` locks. A notification-centre pull, a glance at the app
/// switcher or Siri make the app `inactive`, which shows the ``PrivacyOverlay`` but does not
/// lock; switching to another app or locking the device does. With a
/// ``Configuration/gracePeriod`` the lock engages only when the app comes back after being in
/// the background at least that long (5 minutes is a common choice), measured on a clock that
/// counts while the device sleeps and that setting the system time cannot move
/// (`ContinuousClock`), so setting the date back never skips the lock. A cold launch starts locked when the
/// lock is enabled, so killing the app never bypasses it. A sign-in during this launch unlocks.
///
/// Biometric availability is re-checked each time the app becomes active (no polling timer);
/// if biometrics become unavailable while the lock is enabled, ``availabilityNotice`` says so
/// and the passcode is offered. Prompts are shown only while the app is active: ``unlock()``
/// and the others refuse while it is inactive or in the background.
///
/// Fails closed: when the preferences cannot be read (before the first unlock after a reboot,
/// when "enabled" would read `false`), the lock starts locked, and decides once they can be
/// read — when the app starts (``reloadPreferences()``) or becomes active.
@MainActor
@Observable
public final class AppLock {
    /// Timing and preference keys (the words are ``AppFlowStrings``').
    public struct Configuration: Sendable {
        /// How long the app may stay in the background before it locks on return. `0` (the
        /// default) locks on every background; 5 minutes is a common choice.
        public var gracePeriod: TimeInterval = 0
        /// Whether a cold launch starts locked when the lock is enabled. Default `true`.
        public var lockOnLaunch = true
        /// The preference key of "lock enabled". Default `"biometricUnlockEnabled"`.
        public var enabledKey = "biometricUnlockEnabled"
        /// The preference key of "hint shown". Default `"hasShownBiometricHint"`.
        public var hintShownKey = "hasShownBiometricHint"

        /// The defaults.
        public init() {}
    }

    /// Whether the person turned the lock on (persisted in the app's preferences).
    public internal(set) var isEnabled: Bool
    /// Whether the lock is engaged now: the app shows the unlock screen instead of its content.
    public private(set) var isLocked: Bool
    /// Whether a biometric or passcode prompt is showing (the unlock button is disabled).
    public internal(set) var isAuthenticating = false
    /// What the unlock screen says after a failed attempt; `nil` after a cancellation.
    public internal(set) var message: String?
    /// Whether to show a "Use Passcode" button.
    public internal(set) var offersPasscode = false
    /// Whether the unlock screen offers signing out instead: the lock cannot be opened on this
    /// device (no device passcode is set, so neither biometrics nor the passcode can answer).
    /// Signing out (``LaunchRouter/signOut(scope:)``) disengages the lock; the person signs in
    /// again with their credentials.
    public internal(set) var offersSignOut = false
    /// The last availability check, `nil` before the first one.
    public internal(set) var availability: BiometricAvailability?
    /// Set when biometrics became unavailable while the lock is enabled; dismiss with
    /// ``dismissAvailabilityNotice()``.
    public internal(set) var availabilityNotice: String?
    /// Whether to show the one-time "Enable Face ID?" hint (after the first sign-in).
    public internal(set) var showsEnableHint = false
    /// Whether the preferences have been read: `false` while they could not be (then the lock
    /// is locked whatever ``isEnabled`` says).
    public private(set) var hasReadPreferences: Bool
    /// The last phase reported with ``setPhase(_:)`` (initially `active`).
    public private(set) var phase: AppPhase = .active

    /// The configuration this lock was created with.
    @ObservationIgnored public let configuration: Configuration
    /// The words the lock shows and the prompts it asks with.
    @ObservationIgnored public let strings: AppFlowStrings
    @ObservationIgnored let authenticator: any BiometricAuthenticator
    @ObservationIgnored let preferences: any AppPreferences
    @ObservationIgnored let clock: any Clock<Duration>
    @ObservationIgnored let logger: Logger
    /// How long the app has been in the background, measured from when it went there.
    @ObservationIgnored private var timeAway: (@Sendable () -> Duration)?
    /// The availability check started by the last return to `active` (tests await it).
    @ObservationIgnored private(set) var availabilityCheck: Task<Void, Never>?
    /// The check behind the enable hint started by the last sign-in (tests await it).
    @ObservationIgnored private(set) var hintCheck: Task<Void, Never>?
    /// Told whenever ``isLocked`` changes (the launch router re-derives its route).
    @ObservationIgnored var lockDidChange: (@MainActor () -> Void)?

    /// Creates a lock.
    /// - Parameters:
    ///   - authenticator: Biometrics (`LocalAuthenticationAuthenticator` on Apple platforms).
    ///   - preferences: Where "enabled" and "hint shown" are kept.
    ///   - configuration: Grace period and preference keys.
    ///   - strings: The lock screen's words and the prompts' reasons.
    ///   - clock: Measures the grace period: a clock that counts while the device sleeps and that
    ///     changing the system time cannot move (`ContinuousClock`), so setting the clock back
    ///     never skips the lock.
    ///   - logger: Where lock and unlock are logged (debug level).
    public init(
        authenticator: any BiometricAuthenticator,
        preferences: any AppPreferences,
        configuration: Configuration = .init(),
        strings: AppFlowStrings = .init(),
        clock: any Clock<Duration> = ContinuousClock(),
        logger: Logger = Logger(label: "dev.latchkey.applock")
    ) {
        self.authenticator = authenticator
        self.preferences = preferences
        self.configuration = configuration
        self.strings = strings
        self.clock = clock
        self.logger = logger
        if preferences.isAvailable {
            let enabled = preferences.bool(forKey: configuration.enabledKey)
            isEnabled = enabled
            isLocked = enabled && configuration.lockOnLaunch
            hasReadPreferences = true
        } else {
            // "Enabled" cannot be read: fail closed until it can.
            isEnabled = false
            isLocked = true
            hasReadPreferences = false
        }
    }

    /// Reads "enabled" again. Called when the app starts (``LaunchRouter/start()``) and when it
    /// becomes active. The first successful read after a launch that could not read it decides
    /// the lock as a cold launch would (locked if enabled); later reads only ever enable it
    /// (another scene turned it on), never unlock.
    ///
    /// A stored `true` is believed whenever it reads so, even while ``AppPreferences/isAvailable``
    /// is `false` (unreadable preferences never read `true`): `UserDefaultsPreferences` in a
    /// process that once saw protected data unavailable stays "unavailable" for the rest of
    /// that process, and the lock must still engage once the flag can be read.
    public func reloadPreferences() {
        let enabled = preferences.bool(forKey: configuration.enabledKey)
        guard preferences.isAvailable || enabled else { return }
        if !hasReadPreferences {
            hasReadPreferences = true
            isEnabled = enabled
            if !(enabled && configuration.lockOnLaunch) {
                message = nil
                setLocked(false)
            }
            logger.debug("app lock preferences read", metadata: ["operation": "app_lock", "enabled": "\(enabled)"])
        } else if enabled, !isEnabled {
            isEnabled = true
        }
    }

    /// Reports the scene phase. `background` locks (or starts the grace period); `active`
    /// reads the preferences again, applies the grace period and re-checks biometric
    /// availability; `inactive` does nothing but stop prompts.
    public func setPhase(_ phase: AppPhase) {
        self.phase = phase
        switch phase {
        case .background:
            guard timeAway == nil else { return }
            timeAway = clock.stopwatch()
            if isEnabled, configuration.gracePeriod <= 0 { lock() }
        case .inactive:
            break
        case .active:
            reloadPreferences()
            if let timeAway {
                self.timeAway = nil
                if isEnabled, timeAway() >= .seconds(configuration.gracePeriod) { lock() }
                availabilityCheck = Task { await self.refreshAvailability() }
            }
        }
    }

    /// Engages the lock now (a "Lock now" button), if it is enabled.
    public func lock() {
        guard isEnabled, !isLocked else { return }
        message = nil
        offersPasscode = availability.map { !$0.isAvailable } ?? false
        setLocked(true)
        logger.debug("app locked", metadata: ["operation": "app_lock"])
    }

    /// Records that someone signed in during this launch: that proves who they are, so the
    /// lock disengages at once; and, once per installation, the "Enable Face ID?" hint is offered
    /// when biometrics are available and the lock is off (checked in the background).
    public func noteSignedIn() {
        message = nil
        offersPasscode = false
        setLocked(false)
        guard !isEnabled, hasReadPreferences, !preferences.bool(forKey: configuration.hintShownKey) else { return }
        hintCheck = Task { await self.offerEnableHint() }
    }

    private func offerEnableHint() async {
        let availability = await authenticator.availability()
        self.availability = availability
        guard availability.isAvailable, !isEnabled, !preferences.bool(forKey: configuration.hintShownKey) else { return }
        preferences.set(true, forKey: configuration.hintShownKey)
        showsEnableHint = true
    }

    /// Records that the user signed out: nothing is left to protect, the lock disengages.
    public func noteSignedOut() {
        message = nil
        offersPasscode = false
        offersSignOut = false
        showsEnableHint = false
        setLocked(false)
    }

    func setLocked(_ locked: Bool) {
        guard isLocked != locked else { return }
        isLocked = locked
        lockDidChange?()
    }
}

extension Clock where Duration == Swift.Duration {
    /// A stopwatch started now: each call answers the time since.
    fileprivate func stopwatch() -> @Sendable () -> Duration {
        let start = now
        return { start.duration(to: self.now) }
    }
}
