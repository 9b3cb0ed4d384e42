import Foundation
import Latchkey
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import LatchkeyAppFlow

/// A reboot, then a background launch (a push, prewarming) before the person unlocks the
/// device: the keychain is locked, the preferences and install marker cannot be read. Nothing
/// may be wiped, nobody signed out, the app not left unlocked; once unlocked and active, the
/// user is signed in without a request.
@Suite("App flow: launched before the first unlock after a reboot", .timeLimit(.minutes(5)))
@MainActor
struct BeforeFirstUnlockFlowTests {
    /// A first install, onboarded and signed in, then a reboot.
    func signedInThenRebooted(_ app: FlowApp, email: String) async throws {
        let launch = await app.start()
        launch.router.completeOnboarding()
        #expect(await launch.logIn(email: email))
        await launch.terminate()
        await app.reboot()
    }

    @Test("Reboot, background launch: nothing wiped, not signed out, locked; unlocked and active: signed in with no request")
    func rebootLaunch() async throws {
        try await withFlowAccount { server, app, email, userID in
            try await signedInThenRebooted(app, email: email)
            let stored = try #require(await app.keychain.peek(key: "latchkey.session"))
            let requestsBefore = app.transport.total

            let launch = await app.launch()
            launch.router.setPhase(.background)  // launched in the background
            await launch.router.start()
            #expect(launch.router.route == .splash, "no onboarding, no login: nothing can be decided yet")
            #expect(!launch.router.isOnboardingFlagRead)
            #expect(launch.lock.isLocked, "the lock fails closed")
            #expect(launch.router.authState == .signedOut(.storageFailure(.locked)))
            #expect(await app.keychain.deleteAttempts == 0, "nothing wiped")
            #expect(await app.keychain.peek(key: "latchkey.session") == stored)
            #expect(app.transport.total == requestsBefore)

            await app.firstUnlock()
            await launch.router.setPhase(.active).value
            #expect(await launch.waitForRoute(.main))
            #expect(launch.router.authState.session?.user.id == userID)
            #expect(!launch.lock.isLocked, "the lock was never enabled")
            #expect(app.transport.total == requestsBefore, "a valid token needs no request")
            #expect(await app.keychain.deleteAttempts == 0)
            #expect(!launch.router.history.contains(.onboarding))
            #expect(!launch.router.history.contains(.auth(.login)))
        }
    }

    @Test("With the app lock enabled: locked before the unlock, and still locked (not main) after it")
    func rebootWithLockEnabled() async throws {
        try await withFlowAccount { server, app, email, _ in
            let first = await app.start()
            first.router.completeOnboarding()
            #expect(await first.logIn(email: email))
            #expect(await first.lock.enable())
            await first.terminate()
            await app.reboot()

            let launch = await app.launch()
            launch.router.setPhase(.background)
            await launch.router.start()
            #expect(launch.lock.isLocked)
            #expect(!launch.lock.hasReadPreferences)

            await app.firstUnlock()
            await launch.router.setPhase(.active).value
            #expect(await launch.waitForRoute(.locked), "signed in, behind the lock")
            #expect(launch.lock.isEnabled)
            #expect(await launch.lock.unlock())
            #expect(launch.router.route == .main)
        }
    }

    /// How the models learn that the preferences can be read: the app becoming active, or
    /// UIKit's protected-data notification while still in the background.
    enum ReadableAgain: String, CaseIterable, Sendable {
        case becomingActive = "the app becomes active"
        case protectedDataAvailable = "protected data available, still in the background"
    }

    @Test(
        "Preferences unreadable while the keychain is readable: the restored session is not signed out; read again when…",
        arguments: ReadableAgain.allCases)
    func preferencesUnreadableOnly(readableAgain: ReadableAgain) async throws {
        try await withFlowAccount { server, app, email, userID in
            try await signedInThenRebooted(app, email: email)
            // An `afterFirstUnlock` keychain that another process already unlocked, say: only
            // the preferences are unreadable.
            await app.keychain.setLocked(false)
            await app.marker.setReadable(true)

            let launch = await app.launch()
            await launch.router.start()
            #expect(launch.router.authState.session?.user.id == userID)
            #expect(launch.router.route == .splash)

            app.preferences.isAvailable = true
            switch readableAgain {
            case .becomingActive: await launch.router.setPhase(.active).value
            case .protectedDataAvailable: await launch.router.protectedDataDidBecomeAvailable()
            }
            #expect(await launch.waitForRoute(.main))
            #expect(await launch.manager.state.isSignedIn, "an unreadable onboarding flag never signed anyone out")
            #expect(await app.keychain.deleteAttempts == 0)
            #expect(launch.router.history == [.splash, .main])
        }
    }

    @Test("Flags read after the unlock say onboarding was never completed (a reinstall): the keychain's session is still distrusted")
    func reinstallReadLate() async throws {
        try await withFlowAccount { server, app, email, _ in
            try await signedInThenRebooted(app, email: email)
            app.reinstall()  // fresh preferences and marker, the keychain kept
            app.useInstallMarker = false  // so the keychain's session is restored, and only the router can distrust it
            await app.keychain.setLocked(false)
            app.preferences.isAvailable = false

            let launch = await app.launch()
            await launch.router.start()
            #expect(launch.router.route == .splash)
            #expect(launch.router.authState.isSignedIn, "restored, not yet distrusted: the flag cannot be read")

            app.preferences.isAvailable = true
            await launch.router.setPhase(.active).value
            #expect(await launch.waitForRoute(.onboarding))
            #expect(await eventually { await !launch.manager.state.isSignedIn }, "the untrusted session is signed out")
            launch.router.completeOnboarding()
            #expect(launch.router.route == .auth(.login), "never main on the keychain's session")
        }
    }
}

/// The app lock's side of it, without a server.
@Suite("App flow: app lock before the first unlock, and prompts only while active", .timeLimit(.minutes(5)))
@MainActor
struct AppLockProtectedDataTests {
    let authenticator = ScriptedAuthenticator()
    let preferences = MemoryPreferences()

    func makeLock(lockOnLaunch: Bool = true) -> AppLock {
        var configuration = AppLock.Configuration()
        configuration.lockOnLaunch = lockOnLaunch
        return AppLock(
            authenticator: authenticator, preferences: preferences, configuration: configuration,
            clock: ManualSessionClock().continuous, logger: .quiet)
    }

    @Test("Unreadable preferences: locked whatever was stored; read later, a disabled lock opens", arguments: [true, false])
    func failsClosed(lockOnLaunch: Bool) {
        preferences.isAvailable = false
        let lock = makeLock(lockOnLaunch: lockOnLaunch)
        #expect(lock.isLocked)
        #expect(!lock.hasReadPreferences)
        lock.setPhase(.background)
        lock.setPhase(.active)  // still unreadable: nothing changes
        #expect(lock.isLocked)
        preferences.isAvailable = true
        lock.setPhase(.active)
        #expect(!lock.isLocked)
        #expect(lock.hasReadPreferences)
    }

    @Test("Unreadable preferences with the lock enabled: stays locked once they are read")
    func enabledStaysLocked() {
        preferences.set(true, forKey: "biometricUnlockEnabled")
        preferences.isAvailable = false
        let lock = makeLock()
        #expect(lock.isLocked)
        preferences.isAvailable = true
        lock.reloadPreferences()
        #expect(lock.isLocked)
        #expect(lock.isEnabled)
    }

    @Test("A later read never unlocks: only the first read after an unreadable launch decides")
    func laterReadsOnlyTighten() {
        preferences.set(true, forKey: "biometricUnlockEnabled")
        let lock = makeLock()
        #expect(lock.isLocked)
        preferences.set(false, forKey: "biometricUnlockEnabled")
        lock.reloadPreferences()
        #expect(lock.isLocked, "a flag that now reads false does not open the lock")
    }

    @Test(
        "Biometric prompts only while active: unlock and enable refuse in the background and while inactive",
        arguments: [AppPhase.background, .inactive])
    func promptsOnlyWhileActive(phase: AppPhase) async {
        preferences.set(true, forKey: "biometricUnlockEnabled")
        let lock = makeLock()
        lock.setPhase(phase)
        #expect(await lock.unlock() == false)
        #expect(await lock.unlockWithPasscode() == false)
        #expect(authenticator.prompts.isEmpty, "no prompt while not active")
        #expect(lock.isLocked)
        lock.setPhase(.active)
        #expect(await lock.unlock())
        #expect(authenticator.prompts.count == 1)

        lock.disable()
        lock.setPhase(phase)
        #expect(await lock.enable() == false)
        #expect(authenticator.prompts.count == 1)
    }

    @Test("Unreadable preferences are never written")
    func noBlindWrites() {
        preferences.isAvailable = false
        preferences.set(true, forKey: "hasCompletedOnboarding")
        preferences.isAvailable = true
        #expect(preferences.bool(forKey: "hasCompletedOnboarding") == false)
        #expect(OnboardingFlag(preferences: preferences).isCompletedIfReadable == false)
        preferences.isAvailable = false
        #expect(OnboardingFlag(preferences: preferences).isCompletedIfReadable == nil)
    }

    @Test("UserDefaults preferences ask whether protected data can be read, and write nothing while not")
    func userDefaultsPreferences() {
        let suite = "latchkey-tests-\(UUID().uuidString)"
        defer { UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite) }
        let protectedData = ScriptedProtectedData(available: false)
        let preferences = UserDefaultsPreferences(suiteName: suite, protectedData: protectedData, history: ProtectedDataHistory())
        #expect(!preferences.isAvailable)
        preferences.set(true, forKey: "flag")
        #expect(UserDefaults(suiteName: suite)?.object(forKey: "flag") == nil)
        protectedData.setAvailable(true)
        preferences.set(true, forKey: "flag")
        #expect(preferences.bool(forKey: "flag"))
    }

    @Test("UserDefaults preferences in a process that saw them unreadable: a 'false' is never believed again, a 'true' is")
    func userDefaultsStaleCopy() {
        let suite = "latchkey-tests-\(UUID().uuidString)"
        defer { UserDefaults(suiteName: suite)?.removePersistentDomain(forName: suite) }
        let protectedData = ScriptedProtectedData(available: true)
        let history = ProtectedDataHistory()
        let preferences = UserDefaultsPreferences(suiteName: suite, protectedData: protectedData, history: history)
        #expect(preferences.isAvailable, "never unavailable in this process: a 'false' is believed")
        #expect(OnboardingFlag(preferences: preferences).isCompletedIfReadable == false)

        protectedData.setAvailable(false)  // launched before the first unlock
        #expect(!preferences.isAvailable)
        protectedData.setAvailable(true)  // unlocked; the defaults may be the empty copy read before
        #expect(!preferences.isAvailable, "still not believed")
        #expect(OnboardingFlag(preferences: preferences).isCompletedIfReadable == nil)
        UserDefaults(suiteName: suite)?.set(true, forKey: OnboardingFlag.defaultKey)
        #expect(OnboardingFlag(preferences: preferences).isCompletedIfReadable == true, "a 'true' cannot come from an empty copy")
        #expect(
            UserDefaultsPreferences(suiteName: suite, protectedData: protectedData, history: ProtectedDataHistory()).isAvailable,
            "a new process believes its defaults again")
    }
}
