import Foundation
import Latchkey
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import LatchkeyAppFlow

/// `UserDefaultsPreferences` in a process that once saw protected data unavailable stays
/// "unavailable" for the rest of the process (its copy of the defaults may be the empty one read
/// before the first unlock). The models must still read a stored `true`, and must not wait for
/// an onboarding flag forever; and an app moving to `FilePreferences` keeps its flags.
@Suite("App flow: preferences that stay unreadable, and upgrading to file preferences", .timeLimit(.minutes(5)))
@MainActor
struct StalePreferencesTests {
    let suite = "latchkey-tests-\(UUID().uuidString)"
    let protectedData = ScriptedProtectedData(available: false)
    let history = ProtectedDataHistory()
    let authenticator = ScriptedAuthenticator()

    var defaults: UserDefaults { UserDefaults(suiteName: suite)! }

    /// Preferences of a process launched before the first unlock (the defaults read empty).
    func staleProcessPreferences() -> UserDefaultsPreferences {
        let preferences = UserDefaultsPreferences(suiteName: suite, protectedData: protectedData, history: history)
        #expect(!preferences.isAvailable)
        return preferences
    }

    /// The person unlocks the device: the defaults hold what was stored, but this process's
    /// preferences still report themselves unavailable.
    func unlock(_ stored: [String: Bool]) {
        protectedData.setAvailable(true)
        for (key, value) in stored { defaults.set(value, forKey: key) }
    }

    @Test("App lock enabled, launched before the first unlock: once the stored 'enabled' reads, the app locks again at every background")
    func relocksAfterTheFirstUnlock() async {
        defer { defaults.removePersistentDomain(forName: suite) }
        let preferences = staleProcessPreferences()
        let lock = AppLock(authenticator: authenticator, preferences: preferences, clock: ManualSessionClock().continuous, logger: .quiet)
        #expect(lock.isLocked, "fails closed")
        lock.setPhase(.background)

        unlock(["biometricUnlockEnabled": true])
        #expect(!preferences.isAvailable, "this process still cannot trust a 'false'")
        lock.setPhase(.active)
        #expect(lock.isEnabled, "the stored 'true' is read")
        #expect(lock.isLocked)
        #expect(await lock.unlock())
        #expect(!lock.isLocked)

        lock.setPhase(.background)
        #expect(lock.isLocked, "locks again: the person turned the lock on")
    }

    func router(preferences: any AppPreferences, signedIn: Bool) async throws -> (LaunchRouter, SessionManager) {
        let backend = TestBackend()
        let store = MemoryCredentialStore()
        let clock = ManualSessionClock()
        if signedIn {
            let first = SessionManager(backend: backend, store: store, clock: clock, logger: .quiet)
            await first.restore()
            try await first.account.signIn(email: "ada@example.com", password: "correct horse")
        }
        let manager = SessionManager(backend: backend, store: store, clock: clock, logger: .quiet)
        var configuration = LaunchRouter.Configuration()
        configuration.requiresConfirmedEmail = false  // the test backend's user has no confirmed address
        let router = LaunchRouter(
            manager: manager, onboarding: OnboardingFlag(preferences: preferences), configuration: configuration,
            clock: clock, logger: .quiet)
        return (router, manager)
    }

    @Test("Onboarding never finished, flags unreadable for the whole process: the launch screen gives way to onboarding once active")
    func onboardingNotStuckOnSplash() async throws {
        defer { defaults.removePersistentDomain(forName: suite) }
        let (router, _) = try await router(preferences: staleProcessPreferences(), signedIn: false)
        router.setPhase(.background)
        await router.start()
        #expect(router.route == .splash)

        unlock([:])  // nothing stored: onboarding was never completed
        await router.setPhase(.active).value
        #expect(await eventually { router.route == .onboarding }, "not the splash screen forever")
        router.completeOnboarding()
        #expect(router.route == .auth(.login))
    }

    @Test("Flags unreadable for the whole process with a restored session: kept, never signed out on a flag nobody could read")
    func sessionKeptWithoutTheFlag() async throws {
        defer { defaults.removePersistentDomain(forName: suite) }
        let (router, manager) = try await router(preferences: staleProcessPreferences(), signedIn: true)
        router.setPhase(.background)
        await router.start()
        #expect(router.route == .splash)

        unlock([:])  // the defaults stay an empty copy in this process
        await router.setPhase(.active).value
        #expect(await eventually { router.route == .main })
        #expect(await manager.state.isSignedIn)
    }

    @Test("Upgrading from UserDefaults preferences: onboarding and the app lock carry over, copied once")
    func upgradeFromUserDefaults() async throws {
        let directory = temporaryDirectory("upgrade-preferences")
        defer {
            removeDirectory(directory)
            defaults.removePersistentDomain(forName: suite)
        }
        defaults.set(true, forKey: OnboardingFlag.defaultKey)
        defaults.set(true, forKey: "biometricUnlockEnabled")
        protectedData.setAvailable(true)
        let earlier = UserDefaultsPreferences(suiteName: suite, protectedData: protectedData, history: ProtectedDataHistory())
        let preferences = FilePreferences(directory: directory).migrating(from: earlier)
        let (router, manager) = try await router(preferences: preferences, signedIn: true)
        let lock = AppLock(authenticator: authenticator, preferences: preferences, clock: ManualSessionClock().continuous, logger: .quiet)
        #expect(lock.isEnabled && lock.isLocked, "the lock is still on")
        await router.start()
        #expect(router.route == .main, "onboarding was completed: the session is trusted")
        #expect(await manager.state.isSignedIn, "not signed out as a session from before onboarding")

        // Copied once: turning a flag off now is not undone by the earlier defaults.
        preferences.set(false, forKey: "biometricUnlockEnabled")
        #expect(!FilePreferences(directory: directory).migrating(from: earlier).bool(forKey: "biometricUnlockEnabled"))
        #expect(FilePreferences(directory: directory).bool(forKey: OnboardingFlag.defaultKey), "the file itself holds it")
    }

    @Test("Upgrading while the earlier defaults cannot be read: nothing is decided from them, nothing copied until they can be")
    func upgradeBeforeFirstUnlock() async throws {
        let directory = temporaryDirectory("upgrade-preferences")
        defer {
            removeDirectory(directory)
            defaults.removePersistentDomain(forName: suite)
        }
        let earlierHistory = ProtectedDataHistory()
        let earlier = UserDefaultsPreferences(suiteName: suite, protectedData: protectedData, history: earlierHistory)
        let preferences = FilePreferences(directory: directory).migrating(from: earlier)
        #expect(!preferences.isAvailable, "a missing file is not 'false' while the earlier flags cannot be read")
        #expect(OnboardingFlag(preferences: preferences).isCompletedIfReadable == nil)

        // The next process, after the unlock, reads them.
        defaults.set(true, forKey: OnboardingFlag.defaultKey)
        protectedData.setAvailable(true)
        let next = FilePreferences(directory: directory).migrating(
            from: UserDefaultsPreferences(suiteName: suite, protectedData: protectedData, history: ProtectedDataHistory()))
        #expect(next.isAvailable)
        #expect(OnboardingFlag(preferences: next).isCompletedIfReadable == true)
    }

    @Test("tvOS: the standard preferences keep their flags in UserDefaults")
    func tvOSDefaults() {
        let key = "latchkey-tests-flag-\(UUID().uuidString)"
        defer { UserDefaults.standard.removeObject(forKey: key) }
        let preferences = FilePreferences(
            directory: temporaryDirectory("purged"), earlier: nil, keepsFlagsInDefaults: true)
        #expect(preferences.isAvailable)
        preferences.set(true, forKey: key)
        #expect(UserDefaults.standard.bool(forKey: key))
        #expect(preferences.bool(forKey: key))
        #expect(!FileManager.default.fileExists(atPath: preferences.url(forKey: key).path), "no file for tvOS to purge")
    }
}
