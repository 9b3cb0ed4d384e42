import Latchkey
import LatchkeyTestSupport
import LatchkeyTesting
import Testing

@testable import LatchkeyAppFlow

/// Issue 27: several windows, one app phase.
@Suite("App flow: scene phases")
struct ScenePhasesTests {
    @Test("A second window going to the background leaves the app active while the first is in front")
    func anyActiveSceneKeepsTheAppActive() {
        var scenes = ScenePhases()
        #expect(scenes.phase == .background, "no scene yet")
        #expect(scenes.set(.active, for: "left") == .active)
        #expect(scenes.set(.active, for: "right") == .active)
        #expect(scenes.set(.background, for: "right") == .active)
        #expect(scenes.set(.inactive, for: "left") == .inactive, "the app switcher over the last active window")
        #expect(scenes.set(.background, for: "left") == .background)
        #expect(scenes.set(.active, for: "right") == .active)
        #expect(scenes.remove("right") == .background, "the last window in front closed")
    }

    @Test("Forwarded to the app lock, a background window does not lock the app; the last one does")
    @MainActor
    func lockFollowsTheApp() {
        let preferences = MemoryPreferences()
        preferences.set(true, forKey: "biometricUnlockEnabled")
        var configuration = AppLock.Configuration()
        configuration.lockOnLaunch = false
        let lock = AppLock(
            authenticator: ScriptedAuthenticator(), preferences: preferences, configuration: configuration,
            clock: ManualSessionClock().continuous, logger: .quiet)
        var scenes = ScenePhases()
        lock.setPhase(scenes.set(.active, for: "left"))
        lock.setPhase(scenes.set(.active, for: "right"))
        lock.setPhase(scenes.set(.background, for: "right"))
        #expect(!lock.isLocked)
        lock.setPhase(scenes.set(.background, for: "left"))
        #expect(lock.isLocked)
    }
}
