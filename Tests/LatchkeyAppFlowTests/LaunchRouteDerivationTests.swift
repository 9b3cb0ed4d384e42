import Foundation
import Latchkey
import LatchkeyTestSupport
import Testing

@testable import LatchkeyAppFlow

/// The route as a pure function of its inputs: the order, the never-blank splash, the timeout
/// fallback and seed 001's invariant, without any server.
@Suite("App flow: route derivation")
struct LaunchRouteDerivationTests {
    let base = sampleSession(issuedAt: Date(), userID: "u1")
    var unconfirmed: Session {
        var user = base.user
        user.emailConfirmedAt = nil
        user.confirmedAt = nil
        return Session(accessToken: "a", refreshToken: "r", expiresIn: 3600, expiresAt: Date().addingTimeInterval(3600), user: user)
    }
    var confirmedSession: Session {
        var user = base.user
        user.emailConfirmedAt = Date()
        return Session(accessToken: "a", refreshToken: "r", expiresIn: 3600, expiresAt: Date().addingTimeInterval(3600), user: user)
    }

    func inputs(_ change: (inout LaunchRouteInputs) -> Void) -> LaunchRouteInputs {
        var inputs = LaunchRouteInputs(onboardingCompleted: true, onboardingCompletedAtLaunch: true)
        change(&inputs)
        return inputs
    }

    @Test("Undecided → splash, even before onboarding; a timed-out check → login")
    func splashAndTimeout() {
        #expect(inputs { _ in }.derive() == .splash)
        #expect(inputs { $0.onboardingCompleted = false }.derive() == .splash)
        #expect(inputs { $0.checkTimedOut = true }.derive() == .auth(.login))
        #expect(
            inputs {
                $0.checkTimedOut = true
                $0.authScreen = .signUp
            }.derive() == .auth(.signUp))
    }

    @Test("Order: onboarding → auth → verifyEmail → locked → main")
    func order() {
        #expect(
            inputs {
                $0.authState = .signedOut(.noSession)
                $0.onboardingCompleted = false
            }.derive() == .onboarding)
        #expect(inputs { $0.authState = .signedOut(.noSession) }.derive() == .auth(.login))
        #expect(
            inputs {
                $0.authState = .signedOut(.noSession)
                $0.awaitingVerification = true
            }.derive() == .verifyEmail)
        #expect(inputs { $0.authState = .signedIn(unconfirmed) }.derive() == .verifyEmail)
        #expect(
            inputs {
                $0.authState = .signedIn(unconfirmed)
                $0.isLocked = true
            }.derive() == .verifyEmail)
        #expect(
            inputs {
                $0.authState = .signedIn(confirmedSession)
                $0.isLocked = true
            }.derive() == .locked)
        #expect(inputs { $0.authState = .signedIn(confirmedSession) }.derive() == .main)
        #expect(inputs { $0.authState = .signedInOffline(confirmedSession) }.derive() == .main)
        #expect(
            inputs {
                $0.authState = .signedIn(unconfirmed)
                $0.requiresConfirmedEmail = false
            }.derive() == .main)
    }

    @Test("verifySecondFactor: after verifyEmail, before locked; only at aal1 with a verified factor")
    func secondFactor() {
        func session(aal: String, factors: [Factor]) -> Session {
            var user = confirmedSession.user
            user.factors = factors
            return Session(
                accessToken: TestBackend.unsignedJWT(counter: 1, aal: aal), refreshToken: "r", expiresIn: 3600,
                expiresAt: Date().addingTimeInterval(3600), user: user)
        }
        let verified = [Factor(id: "f", status: .verified)]
        let aal1 = session(aal: "aal1", factors: verified)
        #expect(inputs { $0.authState = .signedIn(aal1) }.derive() == .verifySecondFactor)
        #expect(inputs { $0.authState = .signedInOffline(aal1) }.derive() == .verifySecondFactor)
        #expect(
            inputs {
                $0.authState = .signedIn(aal1)
                $0.isLocked = true
            }.derive() == .verifySecondFactor,
            "the code comes before the app lock")
        var unconfirmed = aal1.user
        unconfirmed.emailConfirmedAt = nil
        unconfirmed.confirmedAt = nil
        let unconfirmedSession = Session(
            accessToken: aal1.accessToken, refreshToken: "r", expiresIn: 3600, expiresAt: aal1.expiresAt, user: unconfirmed)
        #expect(inputs { $0.authState = .signedIn(unconfirmedSession) }.derive() == .verifyEmail)
        #expect(inputs { $0.authState = .signedIn(session(aal: "aal2", factors: verified)) }.derive() == .main)
        #expect(
            inputs {
                $0.authState = .signedIn(session(aal: "aal2", factors: verified))
                $0.isLocked = true
            }.derive() == .locked)
        #expect(inputs { $0.authState = .signedIn(session(aal: "aal1", factors: [Factor(id: "f", status: .unverified)])) }.derive() == .main)
        #expect(
            inputs {
                $0.authState = .signedIn(aal1)
                $0.requiresSecondFactor = false
            }.derive() == .main)
        let untrusted = inputs {
            $0.authState = .signedIn(aal1)
            $0.onboardingCompletedAtLaunch = false
        }
        #expect(untrusted.derive() == .auth(.login), "the reinstall invariant comes first")
    }

    @Test("Seed 001: a restored session after onboarding completed in this launch → auth, never main")
    func reinstallInvariant() {
        let restoredAfterFreshOnboarding = inputs {
            $0.authState = .signedIn(confirmedSession)
            $0.onboardingCompletedAtLaunch = false
        }
        #expect(restoredAfterFreshOnboarding.derive() == .auth(.login))
        var signedInNow = restoredAfterFreshOnboarding
        signedInNow.authenticatedThisLaunch = true
        #expect(signedInNow.derive() == .main, "a sign-in during this launch is trusted")
        var noOnboarding = restoredAfterFreshOnboarding
        noOnboarding.hasOnboarding = false
        #expect(noOnboarding.derive() == .main, "an app without onboarding trusts its restored session")
    }

    @Test("Route descriptions for the debug log")
    func descriptions() {
        #expect(LaunchRoute.auth(.signUp).description == "auth(signUp)")
        #expect(
            [LaunchRoute.splash, .onboarding, .verifyEmail, .verifySecondFactor, .locked, .main].map(\.description)
                == ["splash", "onboarding", "verifyEmail", "verifySecondFactor", "locked", "main"])
    }
}
