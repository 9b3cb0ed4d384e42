import Foundation
import Latchkey
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import LatchkeyAppFlow

/// Seed 002 #21 and #24: availability re-checked on becoming active (no polling timer), the
/// notice when biometrics disappear, and the one-time "Enable Face ID?" hint.
@Suite("App flow: biometric availability and hint", .timeLimit(.minutes(5)))
@MainActor
struct AppLockAvailabilityTests {
    let clock = ManualSessionClock()
    let authenticator = ScriptedAuthenticator()
    let preferences = MemoryPreferences()

    func makeLock(enabled: Bool) -> AppLock {
        preferences.set(enabled, forKey: "biometricUnlockEnabled")
        return AppLock(authenticator: authenticator, preferences: preferences, clock: clock.continuous, logger: .quiet)
    }

    @Test("Re-checked when the app becomes active after the background, never polled")
    func recheckOnActive() async {
        let lock = makeLock(enabled: true)
        await lock.refreshAvailability()
        #expect(authenticator.availabilityChecks == 1)
        clock.advance(by: 3600)
        try? await Task.sleep(nanoseconds: 20_000_000)
        #expect(authenticator.availabilityChecks == 1, "no timer polls availability")
        lock.setPhase(.inactive)
        lock.setPhase(.active)
        #expect(lock.availabilityCheck == nil, "an inactive blip is no reason to re-check")

        authenticator.setAvailability(.unavailable(.faceID, .biometryNotEnrolled))
        lock.setPhase(.background)
        lock.setPhase(.active)
        await lock.availabilityCheck?.value
        #expect(authenticator.availabilityChecks == 2)
        #expect(lock.availabilityNotice == "Face ID is not set up. Please enable it in Settings.")
        #expect(lock.isLocked)
        #expect(lock.offersPasscode, "with biometrics gone, the passcode is the way in")
        lock.dismissAvailabilityNotice()
        #expect(lock.availabilityNotice == nil)
    }

    @Test("A disabled lock raises no notice when biometrics disappear")
    func noNoticeWhenDisabled() async {
        let lock = makeLock(enabled: false)
        authenticator.setAvailability(.unavailable(.faceID, .biometryNotAvailable))
        await lock.refreshAvailability()
        #expect(lock.availabilityNotice == nil)
        #expect(lock.availability == .unavailable(.faceID, .biometryNotAvailable))
    }

    @Test("The hint appears once, after the first sign-in, when biometrics are available and the lock is off")
    func hintOnce() async {
        let lock = makeLock(enabled: false)
        lock.noteSignedIn()
        await lock.hintCheck?.value
        #expect(lock.showsEnableHint)
        #expect(lock.enableHintTitle == "Enable Face ID?")
        lock.dismissEnableHint()
        #expect(!lock.showsEnableHint)

        let nextLaunch = AppLock(authenticator: authenticator, preferences: preferences, clock: clock.continuous, logger: .quiet)
        nextLaunch.noteSignedIn()
        await nextLaunch.hintCheck?.value
        #expect(!nextLaunch.showsEnableHint, "never shown twice")
    }

    @Test("No hint without biometrics, nor when the lock is already on")
    func noHint() async {
        authenticator.setAvailability(.unavailable(.none, .biometryNotAvailable))
        let lock = makeLock(enabled: false)
        lock.noteSignedIn()
        await lock.hintCheck?.value
        #expect(!lock.showsEnableHint)
        #expect(!preferences.bool(forKey: "hasShownBiometricHint"), "kept for when biometrics appear")

        authenticator.setAvailability(.available(.touchID))
        let enabled = makeLock(enabled: true)
        enabled.noteSignedIn()
        #expect(enabled.hintCheck == nil)
    }

    @Test("Accepting the hint enables the lock after one biometric check; disabling unlocks")
    func acceptHint() async {
        let lock = makeLock(enabled: false)
        authenticator.script(.userCancel)
        #expect(!(await lock.acceptEnableHint()), "no lock the person could not open")
        #expect(!lock.isEnabled)
        #expect(await lock.enable())
        #expect(lock.isEnabled)
        #expect(preferences.bool(forKey: "biometricUnlockEnabled"))
        lock.setPhase(.background)
        #expect(lock.isLocked)
        lock.disable()
        #expect(!lock.isLocked)
        #expect(!preferences.bool(forKey: "biometricUnlockEnabled"))
    }

    @Test("Signing in unlocks; signing out disengages")
    func signInOut() {
        let lock = makeLock(enabled: true)
        lock.lock()
        #expect(lock.isLocked)
        lock.noteSignedIn()
        #expect(!lock.isLocked)
        lock.lock()
        lock.noteSignedOut()
        #expect(!lock.isLocked)
    }
}
