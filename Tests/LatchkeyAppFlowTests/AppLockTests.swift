import Foundation
import Latchkey
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import LatchkeyAppFlow

/// Seed 002 #20–#24 and seed 000's privacy overlay: the lock and overlay as the scene phase
/// moves, unlock and its fallback, availability, the one-time hint.
@Suite("App flow: app lock and privacy overlay", .timeLimit(.minutes(5)))
@MainActor
struct AppLockTests {
    let clock = ManualSessionClock()
    let authenticator = ScriptedAuthenticator()
    let preferences = MemoryPreferences()
    let overlay = PrivacyOverlay()

    func makeLock(enabled: Bool = true, gracePeriod: TimeInterval = 0, lockOnLaunch: Bool = false) -> AppLock {
        preferences.set(enabled, forKey: "biometricUnlockEnabled")
        var configuration = AppLock.Configuration()
        configuration.gracePeriod = gracePeriod
        configuration.lockOnLaunch = lockOnLaunch
        return AppLock(authenticator: authenticator, preferences: preferences, configuration: configuration, clock: clock.continuous, logger: .quiet)
    }

    /// Moves the scene through `phases`, as SwiftUI reports them, to both models.
    func scene(_ lock: AppLock, _ phases: AppPhase...) {
        for phase in phases {
            lock.setPhase(phase)
            overlay.setPhase(phase)
        }
    }

    @Test(
        "Notification centre, app switcher, Siri (inactive only): overlay while inactive, no lock",
        arguments: ["notification centre", "app switcher", "Siri"])
    func inactiveDoesNotLock(interruption: String) {
        let lock = makeLock()
        scene(lock, .inactive)
        #expect(overlay.isVisible, "\(interruption): the overlay covers the app at once")
        #expect(!lock.isLocked)
        clock.advance(by: 30)
        scene(lock, .active)
        #expect(!overlay.isVisible)
        #expect(!lock.isLocked, "\(interruption) must not lock")
    }

    @Test("Switching to another app or locking the device (background) locks", arguments: ["switch apps", "lock device"])
    func backgroundLocks(interruption: String) {
        let lock = makeLock()
        scene(lock, .inactive, .background)
        #expect(lock.isLocked, "\(interruption) locks at once")
        #expect(overlay.isVisible)
        clock.advance(by: 1)
        scene(lock, .inactive, .active)
        #expect(!overlay.isVisible)
        #expect(lock.isLocked, "still locked on return until unlocked")
    }

    @Test("A disabled lock never locks; the overlay still shows")
    func disabled() {
        let lock = makeLock(enabled: false)
        scene(lock, .inactive, .background)
        #expect(overlay.isVisible)
        scene(lock, .active)
        #expect(!lock.isLocked)
        let hidden = PrivacyOverlay(isEnabled: false)
        hidden.setPhase(.background)
        #expect(!hidden.isVisible, "an app may turn the overlay off")
    }

    @Test("Grace period (seed 000: 5 minutes): under it no lock, over it lock on return")
    func gracePeriod() {
        let lock = makeLock(gracePeriod: 300)
        scene(lock, .inactive, .background)
        #expect(!lock.isLocked, "not at once with a grace period")
        clock.advance(by: 299)
        scene(lock, .inactive, .active)
        #expect(!lock.isLocked)
        scene(lock, .inactive, .background)
        clock.advance(by: 301)
        scene(lock, .inactive, .active)
        #expect(lock.isLocked)
    }

    @Test("Setting the system clock back while in the background never skips the lock")
    func wallClockSetBack() {
        let lock = makeLock(gracePeriod: 300)
        scene(lock, .inactive, .background)
        clock.advance(by: 600)
        // A user sets the date back an hour before returning: the grace period still counts
        // the ten minutes that really passed.
        clock.setWallClock(to: clock.now().addingTimeInterval(-3600))
        scene(lock, .inactive, .active)
        #expect(lock.isLocked)

        // And moving the clock forward does not lock within the grace period.
        lock.setLocked(false)
        scene(lock, .inactive, .background)
        clock.setWallClock(to: clock.now().addingTimeInterval(86_400))
        clock.advance(by: 10)
        scene(lock, .inactive, .active)
        #expect(!lock.isLocked)
    }

    @Test("A cold launch starts locked when enabled; killing the app never bypasses the lock")
    func lockedAtLaunch() {
        #expect(makeLock(enabled: true, lockOnLaunch: true).isLocked)
        #expect(!makeLock(enabled: false, lockOnLaunch: true).isLocked)
    }

    @Test("Unlock uses the biometrics-only policy; a double tap shows one prompt")
    func unlock() async {
        let lock = makeLock(lockOnLaunch: true)
        authenticator.hold()
        async let first = lock.unlock()
        #expect(await eventually { authenticator.prompts.count == 1 })
        #expect(lock.isAuthenticating)
        let second = await lock.unlock()
        #expect(!second, "a second tap while the prompt shows does nothing")
        authenticator.release()
        #expect(await first)
        #expect(!lock.isLocked)
        #expect(authenticator.prompts == [.init(reason: "Unlock to continue.", policy: .biometricsOnly)])
    }

    @Test("Lockout offers 'Use Passcode', which uses the passcode policy")
    func passcodeFallback() async {
        let lock = makeLock(lockOnLaunch: true)
        authenticator.script(.biometryLockout)
        #expect(!(await lock.unlock()))
        #expect(lock.message == "Too many failed attempts. Use your device passcode to unlock.")
        #expect(lock.offersPasscode)
        #expect(lock.isLocked)
        #expect(await lock.unlockWithPasscode())
        #expect(!lock.isLocked)
        #expect(authenticator.prompts.last == .init(reason: "Enter your device passcode.", policy: .biometricsOrPasscode))
    }

    @Test("No device passcode: neither prompt can open the lock, so signing out is offered and opens it")
    func passcodeNotSet() async {
        let lock = makeLock(lockOnLaunch: true)
        authenticator.script(.passcodeNotSet, .passcodeNotSet)
        #expect(!lock.offersSignOut)
        #expect(!(await lock.unlock()))
        #expect(lock.message == "Please set a device passcode in Settings to use Face ID.")
        #expect(lock.offersSignOut)
        #expect(!(await lock.unlockWithPasscode()))
        #expect(lock.isLocked && lock.offersSignOut)
        lock.noteSignedOut()  // what LaunchRouter.signOut() does once the session is gone
        #expect(!lock.isLocked)
        #expect(!lock.offersSignOut)
    }

    @Test("Cancelling says nothing; failing says so and stays locked")
    func cancelAndFail() async {
        let lock = makeLock(lockOnLaunch: true)
        authenticator.script(.userCancel, .authenticationFailed)
        #expect(!(await lock.unlock()))
        #expect(lock.message == nil)
        #expect(!lock.offersPasscode)
        #expect(!(await lock.unlock()))
        #expect(lock.message == "Face ID authentication failed. Please try again.")
        #expect(lock.isLocked)
    }
}
