import Latchkey

/// Which auth screen the app shows.
public enum AuthScreen: String, Sendable, Hashable, CustomStringConvertible {
    /// Sign in to an existing account.
    case login
    /// Create an account.
    case signUp

    public var description: String { rawValue }
}

/// The one screen the app's root shows, derived by ``LaunchRouter``.
///
/// The order is fixed: `splash` → `onboarding` → `auth(login | signUp)` → `verifyEmail` →
/// `verifySecondFactor` → `locked` → `main`. There is no blank state: until the session check is decided the route is
/// ``splash``. The route also stays ``splash`` while the app's preferences cannot be read
/// (before the first unlock after a reboot), at most until the app becomes active with the
/// session check decided (``LaunchRouter/setPhase(_:)``).
public enum LaunchRoute: Sendable, Hashable, CustomStringConvertible {
    /// The session check is in progress: show a branded launch screen, never a blank one.
    case splash
    /// Onboarding has not been completed on this installation.
    case onboarding
    /// Nobody is signed in (or the session cannot be trusted): show the login or sign-up form.
    case auth(AuthScreen)
    /// The account's email address must be confirmed before going further.
    case verifyEmail
    /// Signed in with a password (or an emailed code), but the account has a verified second
    /// factor and the session is still `aal1`: ask for the code from the authenticator app
    /// (``LaunchRouter/makeSecondFactorForm()``).
    case verifySecondFactor
    /// Signed in, but the app lock is engaged: show the unlock screen.
    case locked
    /// Signed in: the app itself.
    case main

    public var description: String {
        switch self {
        case .splash: "splash"
        case .onboarding: "onboarding"
        case .auth(let screen): "auth(\(screen))"
        case .verifyEmail: "verifyEmail"
        case .verifySecondFactor: "verifySecondFactor"
        case .locked: "locked"
        case .main: "main"
        }
    }
}

/// Everything the route depends on; ``derive()`` is a pure function of it.
struct LaunchRouteInputs: Sendable, Hashable {
    /// The session manager's state as last observed.
    var authState: AuthState = .unknown
    /// The session check took longer than allowed: fall back to the login route.
    var checkTimedOut = false
    /// The store could not be read at launch and the manager is restoring again (the app
    /// became active): as undecided as ``authState`` `unknown`.
    var recheckingStorage = false
    /// Whether onboarding is required at all (the app has an onboarding flag).
    var hasOnboarding = true
    /// Whether the onboarding flag could be read (it cannot before the first unlock after a
    /// reboot: then no screen is decided and no session is distrusted).
    var onboardingKnown = true
    /// Whether onboarding is completed now.
    var onboardingCompleted = false
    /// Whether onboarding was already completed when this launch began.
    var onboardingCompletedAtLaunch = false
    /// Whether a sign-in (password, sign-up, verification) succeeded during this launch.
    var authenticatedThisLaunch = false
    /// The auth screen the user chose.
    var authScreen: AuthScreen = .login
    /// A sign-up or sign-in is waiting for the email address to be confirmed.
    var awaitingVerification = false
    /// Whether a signed-in user must have a confirmed email address to reach `main`.
    var requiresConfirmedEmail = true
    /// Whether a session that still needs its second factor leads to `verifySecondFactor`.
    var requiresSecondFactor = true
    /// Whether the app lock is engaged.
    var isLocked = false

    /// The route these inputs lead to.
    ///
    /// The reinstall invariant: a session restored from the keychain leads to `main` only if
    /// onboarding had already been completed when the launch began. Onboarding completed during
    /// this launch requires a sign-in during this launch.
    func derive() -> LaunchRoute {
        if authState == .unknown || recheckingStorage, !checkTimedOut { return .splash }
        // The preferences cannot be read yet (a launch before the first unlock after a reboot):
        // which screen is right cannot be told, and nobody sees this launch anyway.
        if hasOnboarding, !onboardingKnown { return .splash }
        if hasOnboarding, !onboardingCompleted { return .onboarding }
        let trusted = !hasOnboarding || onboardingCompletedAtLaunch || authenticatedThisLaunch
        guard let session = authState.session, trusted else {
            return awaitingVerification ? .verifyEmail : .auth(authScreen)
        }
        if requiresConfirmedEmail, session.user.email != nil, !session.user.isEmailConfirmed {
            return .verifyEmail
        }
        if requiresSecondFactor, session.requiresSecondFactor { return .verifySecondFactor }
        if isLocked { return .locked }
        return .main
    }
}
