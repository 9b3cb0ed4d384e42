import Foundation
import Latchkey
import Logging

extension AppLock {
    /// The biometry the device has, as last checked.
    public var biometryKind: BiometryKind {
        availability?.kind ?? .none
    }

    /// The name of the device's biometry, e.g. "Face ID".
    public var biometryName: String {
        strings.biometryName(biometryKind)
    }

    /// The unlock button's title, e.g. "Unlock with Face ID".
    public var unlockButtonTitle: String {
        strings.unlockButton(biometryName)
    }

    /// The hint's title, e.g. "Enable Face ID?".
    public var enableHintTitle: String {
        strings.enableHintTitle(biometryName)
    }

    /// The hint's message.
    public var enableHintMessage: String {
        strings.enableHintMessage(biometryName)
    }

    /// Unlocks with biometrics only (never a silent passcode prompt). A second call while a
    /// prompt is showing does nothing, and so does a call while the app is not active (the
    /// system would refuse or cancel the prompt): call it from the unlock button, or when the
    /// app becomes active. On failure ``message`` and ``offersPasscode`` say what happened.
    /// - Returns: Whether the app is unlocked.
    @discardableResult
    public func unlock() async -> Bool {
        await authenticate(policy: .biometricsOnly, reason: strings.unlockReason)
    }

    /// Unlocks with the device passcode (or biometrics): the explicit "Use Passcode" fallback.
    /// - Returns: Whether the app is unlocked.
    @discardableResult
    public func unlockWithPasscode() async -> Bool {
        await authenticate(policy: .biometricsOrPasscode, reason: strings.passcodeReason)
    }

    private func authenticate(policy: BiometricPolicy, reason: String) async -> Bool {
        guard isLocked else { return true }
        guard !isAuthenticating, phase == .active else { return false }
        isAuthenticating = true
        defer { isAuthenticating = false }
        if availability == nil { availability = await authenticator.availability() }
        do {
            try await authenticator.authenticate(reason: reason, policy: policy)
        } catch {
            show(error as? BiometricError ?? .unknown, keepingPasscode: policy == .biometricsOrPasscode)
            logger.debug("unlock failed", metadata: ["operation": "app_lock", "error": "\(error)"])
            return false
        }
        message = nil
        offersPasscode = false
        offersSignOut = false
        setLocked(false)
        logger.debug("app unlocked", metadata: ["operation": "app_lock"])
        return true
    }

    private func show(_ error: BiometricError, keepingPasscode: Bool) {
        message = strings.biometricFailure(error, biometryName)
        offersPasscode =
            error.offersPasscode || (keepingPasscode && offersPasscode)
            || availability.map { !$0.isAvailable } ?? false
        // No passcode: no prompt can open the lock, so the way out is signing out.
        if error == .passcodeNotSet { offersSignOut = true }
    }

    /// Turns the lock on, after one successful biometric check (so nobody enables a lock they
    /// cannot open). Dismisses the hint. Only while the app is active.
    /// - Returns: Whether the lock is now enabled.
    @discardableResult
    public func enable() async -> Bool {
        showsEnableHint = false
        guard !isEnabled else { return true }
        guard !isAuthenticating, phase == .active else { return false }
        isAuthenticating = true
        defer { isAuthenticating = false }
        if availability == nil { availability = await authenticator.availability() }
        do {
            try await authenticator.authenticate(reason: strings.enableReason, policy: .biometricsOnly)
        } catch {
            message = strings.biometricFailure(error as? BiometricError ?? .unknown, biometryName)
            return false
        }
        message = nil
        isEnabled = true
        preferences.set(true, forKey: configuration.enabledKey)
        return true
    }

    /// Turns the lock off and disengages it.
    public func disable() {
        isEnabled = false
        preferences.set(false, forKey: configuration.enabledKey)
        availabilityNotice = nil
        message = nil
        offersPasscode = false
        offersSignOut = false
        setLocked(false)
    }

    /// Accepts the "Enable Face ID?" hint: ``enable()``.
    @discardableResult
    public func acceptEnableHint() async -> Bool {
        await enable()
    }

    /// Declines the hint ("Not Now"); it is not shown again.
    public func dismissEnableHint() {
        showsEnableHint = false
    }

    /// Checks whether biometrics can be used now. Called when the app becomes active; call it
    /// at launch too. If they became unavailable while the lock is enabled, sets
    /// ``availabilityNotice`` and offers the passcode on the lock screen.
    public func refreshAvailability() async {
        let previous = availability
        let current = await authenticator.availability()
        availability = current
        switch current {
        case .available:
            availabilityNotice = nil
        case .unavailable(let kind, let error):
            guard isEnabled else { return }
            if isLocked { offersPasscode = true }
            if previous?.isAvailable ?? true {
                let name = strings.biometryName(kind)
                availabilityNotice = strings.biometricFailure(error, name) ?? strings.biometricsUnavailable(name)
                logger.debug("biometrics became unavailable", metadata: ["operation": "app_lock", "error": "\(error)"])
            }
        }
    }

    /// Dismisses ``availabilityNotice``.
    public func dismissAvailabilityNotice() {
        availabilityNotice = nil
    }
}
