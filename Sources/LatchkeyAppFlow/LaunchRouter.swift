import Foundation
import Latchkey
import Logging
import Observation

/// Derives the one screen the app shows — `splash` → `onboarding` → `auth(login | signUp)` →
/// `verifyEmail` → `verifySecondFactor` → `locked` → `main` — from the session manager's state, the persisted
/// onboarding flag and the app lock.
///
/// ```swift
/// @State var router = LaunchRouter(manager: manager, onboarding: OnboardingFlag(preferences: prefs),
///                                  appLock: lock, privacyOverlay: overlay)
/// var body: some View {
///     switch router.route { case .splash: SplashView() … case .main: MainView() }
///         .task { await router.start() }
///         .onChange(of: scenePhase) { _, phase in router.setPhase(AppPhase(phase)) }
/// }
/// ```
///
/// An app with several windows (iPad, Mac) forwards the app's phase, not one window's:
/// ``ScenePhases`` combines them.
///
/// Guarantees:
/// - Never a blank screen: `splash` until the session check is decided, and the check has a
///   timeout (``Configuration/checkTimeout``) after which the route falls back to login.
/// - A reinstall never skips the login screen: a session restored from the keychain leads to
///   `main` only if onboarding had been completed when this launch began. Onboarding completed during this
///   launch requires a sign-in during this launch; such a restored session is signed out
///   (``Configuration/discardsUntrustedSessions``), so it cannot resurface at the next launch.
/// - A launch that cannot read the app's preferences (before the first unlock after a reboot,
///   when the onboarding flag would read `false`) decides nothing and signs nobody out: the
///   route stays `splash` and the app lock stays locked until the flags can be read, which the
///   router checks when it starts and whenever the app becomes active — when the session
///   manager also restores again. An onboarding flag still unreadable once the app is active
///   (preferences that stay unreadable for the whole process) no longer holds the splash
///   screen: a restored session is kept, and without one onboarding is shown.
/// - Transitions are logged at debug level.
@MainActor
@Observable
public final class LaunchRouter {
    /// Timeouts and policies; every default is what most apps want.
    public struct Configuration: Sendable {
        /// How long the session check may take before the route falls back to login. Default
        /// `nil`: the manager's `SessionManagerConfiguration.launchTimeout` plus 2 s, so the
        /// manager's own offline decision comes first.
        public var checkTimeout: TimeInterval?
        /// Whether a signed-in user whose email is not confirmed is sent to `verifyEmail`.
        /// Default `true`.
        public var requiresConfirmedEmail = true
        /// Whether a session at `aal1` of an account with a verified second factor (restored at
        /// launch, or just signed in with a password) is sent to `verifySecondFactor` rather than
        /// `main`. Default `true`; turn it off for an app that asks for the code only before
        /// what needs it.
        public var requiresSecondFactor = true
        /// Whether a session restored before onboarding was completed is signed out rather than
        /// only ignored, so it cannot resurface at the next launch. Default `true`.
        public var discardsUntrustedSessions = true
        /// The auth screen shown first. Default ``AuthScreen/login``.
        public var initialAuthScreen: AuthScreen = .login

        /// The defaults.
        public init() {}
    }

    /// The screen to show.
    public private(set) var route: LaunchRoute = .splash
    /// The session manager's state as the router last saw it.
    public var authState: AuthState { inputs.authState }
    /// The auth screen chosen (shown when the route is `auth`).
    public var authScreen: AuthScreen { inputs.authScreen }
    /// Whether onboarding is completed (`false` also while the preferences cannot be read).
    public var isOnboardingCompleted: Bool { inputs.onboardingCompleted }
    /// Whether the onboarding flag has been read (it cannot be before the first unlock after a
    /// reboot; the route stays `splash` meanwhile).
    public var isOnboardingFlagRead: Bool { inputs.onboardingKnown }
    /// The address awaiting confirmation: a sign-up's or sign-in's, or the signed-in user's.
    public var verificationEmail: String? { pendingVerificationEmail ?? inputs.authState.session?.user.email }
    /// Where the verify-email screen's last action stands ("I've verified", resend, a code).
    public internal(set) var verificationStatus: FormStatus = .idle
    /// The verify-email screen's status line, in ``strings``' words.
    public var verificationStatusText: String? { strings.text(for: verificationStatus) }

    var inputs: LaunchRouteInputs {
        didSet { updateRoute() }
    }
    var pendingVerificationEmail: String?

    /// The session manager the route follows.
    @ObservationIgnored public let manager: SessionManager
    /// The app lock the route follows, if any.
    @ObservationIgnored public let appLock: AppLock?
    /// The privacy overlay ``setPhase(_:)`` drives, if any.
    @ObservationIgnored public let privacyOverlay: PrivacyOverlay?
    /// The configuration this router was created with.
    @ObservationIgnored public let configuration: Configuration
    /// The words of the router's screens, handed on to the forms it makes.
    @ObservationIgnored public let strings: AppFlowStrings
    @ObservationIgnored let onboarding: OnboardingFlag?
    @ObservationIgnored let clock: any SessionClock
    @ObservationIgnored let logger: Logger
    /// Kept only in memory, only while a verification is pending, to sign in once confirmed.
    @ObservationIgnored var pendingVerificationPassword: String?
    @ObservationIgnored private var started = false
    @ObservationIgnored private var eventTask: Task<Void, Never>?
    @ObservationIgnored private var phaseForwarding: Task<Void, Never>?
    @ObservationIgnored private var discardingUntrusted = false
    @ObservationIgnored private var applying = false
    /// Every route taken this launch, oldest first (the last 100), for tests and diagnostics.
    @ObservationIgnored private(set) var history: [LaunchRoute] = [.splash]

    /// Creates a router. Call ``start()`` once, when the root view appears.
    /// - Parameters:
    ///   - manager: The session manager.
    ///   - onboarding: The onboarding flag; `nil` for an app without onboarding.
    ///   - appLock: The app lock; `nil` for an app without one.
    ///   - privacyOverlay: The overlay ``setPhase(_:)`` drives; `nil` for none.
    ///   - configuration: Timeout and policies.
    ///   - strings: The words of the verify-email status and of the forms the router makes.
    ///   - clock: The time source for the check timeout. Pass the manager's clock when you
    ///     inject one (tests), so both measure the same time.
    ///   - logger: Where transitions are logged (debug level).
    public init(
        manager: SessionManager, onboarding: OnboardingFlag? = nil, appLock: AppLock? = nil,
        privacyOverlay: PrivacyOverlay? = nil, configuration: Configuration = .init(),
        strings: AppFlowStrings = .init(), clock: any SessionClock = SystemSessionClock(),
        logger: Logger = Logger(label: "dev.latchkey.router")
    ) {
        self.manager = manager
        self.onboarding = onboarding
        self.appLock = appLock
        self.privacyOverlay = privacyOverlay
        self.configuration = configuration
        self.strings = strings
        self.clock = clock
        self.logger = logger
        let completed: Bool? = onboarding == nil ? true : onboarding?.isCompletedIfReadable
        inputs = LaunchRouteInputs(
            hasOnboarding: onboarding != nil, onboardingKnown: completed != nil, onboardingCompleted: completed ?? false,
            onboardingCompletedAtLaunch: completed ?? false, authScreen: configuration.initialAuthScreen,
            requiresConfirmedEmail: configuration.requiresConfirmedEmail, requiresSecondFactor: configuration.requiresSecondFactor,
            isLocked: appLock?.isLocked ?? false)
        appLock?.lockDidChange = { [weak self] in self?.lockChanged() }
    }

    deinit {
        eventTask?.cancel()
    }

    /// Decides the launch: reads the onboarding and lock flags again, follows the manager's
    /// events, restores the session, and falls back to the login route if that takes longer
    /// than ``Configuration/checkTimeout``. Returns once the session check is decided (or timed
    /// out). Calling it again does nothing.
    public func start() async {
        guard !started else { return }
        started = true
        reloadPreferences()
        appLock?.reloadPreferences()
        let events = manager.events()
        eventTask = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.handle(event)
            }
        }
        if let appLock { Task { await appLock.refreshAvailability() } }
        let timeout = configuration.checkTimeout ?? manager.configuration.launchTimeout + 2
        if let state = await restore(before: clock.now().addingTimeInterval(timeout)) {
            apply(state)
        } else {
            logger.notice("session check timed out; showing login", metadata: ["operation": "launch_route"])
            inputs.checkTimedOut = true
        }
    }

    /// The manager's restore, or `nil` once `deadline` passes first. A restore still running
    /// then is not cancelled: it finishes and its events update the route.
    private func restore(before deadline: Date) async -> AuthState? {
        let (outcomes, continuation) = AsyncStream.makeStream(of: AuthState?.self)
        Task { [manager] in continuation.yield(await manager.restore()) }
        let timer = Task { [clock] in
            if (try? await clock.sleep(until: deadline)) != nil { continuation.yield(nil) }
        }
        defer {
            timer.cancel()
            continuation.finish()
        }
        for await outcome in outcomes { return outcome }
        return nil
    }

    /// Reports the scene phase: drives the privacy overlay and the app lock at once, reads the
    /// onboarding flag again when the app becomes active, and forwards the phase to the session
    /// manager (in order; becoming active after a launch that could not read the store restores
    /// again). Returns the forwarding, for those who wait.
    @discardableResult
    public func setPhase(_ phase: AppPhase) -> Task<Void, Never> {
        appLock?.setPhase(phase)
        privacyOverlay?.setPhase(phase)
        var recheckingStorage = false
        if phase == .active {
            // The manager restores again (the store could not be read): show the launch screen
            // meanwhile, not a login form that the restore is about to replace.
            if case .signedOut(.storageFailure) = inputs.authState {
                inputs.recheckingStorage = true
                recheckingStorage = true
            }
            reloadPreferences()
        }
        let previous = phaseForwarding
        let forwarding = Task { [manager, weak self] in
            await previous?.value
            await manager.setPhase(phase)
            if recheckingStorage, let self {
                self.apply(await manager.state, endingStorageRecheck: true)
            }
            if phase == .active, let self {
                self.decideWithoutOnboardingFlag(await manager.state)
            }
        }
        phaseForwarding = forwarding
        return forwarding
    }

    /// Tells the models that protected data can be read again, before the app becomes active:
    /// forward UIKit's `UIApplication.protectedDataDidBecomeAvailableNotification` here. The
    /// onboarding flag and the lock's preferences are read again (a launch before the first
    /// unlock could not read them), and a session the store refused while the device was
    /// locked is stored now (``SessionManager/protectedDataDidBecomeAvailable()``).
    public func protectedDataDidBecomeAvailable() async {
        // The lock first, as when the app becomes active: the route is derived once, never
        // through a moment of `locked` from a lock that could not read its preferences yet.
        appLock?.reloadPreferences()
        reloadPreferences()
        await manager.protectedDataDidBecomeAvailable()
    }

    /// Reads the onboarding flag again (the router does it when it starts and whenever the app
    /// becomes active). The first read after a launch that could not read it counts as the
    /// launch's own: it decides whether onboarding was completed before this launch. Later reads
    /// only notice onboarding completed elsewhere (another scene), never make a restored session
    /// trusted.
    public func reloadPreferences() {
        guard let onboarding, let completed = onboarding.isCompletedIfReadable else { return }
        var next = inputs
        if !next.onboardingKnown {
            next.onboardingKnown = true
            next.onboardingCompleted = completed
            next.onboardingCompletedAtLaunch = completed
            logger.debug("onboarding flag read", metadata: ["operation": "launch_route", "completed": "\(completed)"])
        } else if completed, !next.onboardingCompleted {
            next.onboardingCompleted = true
        }
        guard next != inputs else { return }
        inputs = next
        discardUntrustedSessionIfNeeded()
    }

    /// The app is active — so the device is unlocked — the session check is decided, and the
    /// onboarding flag still cannot be read: preferences that stay unreadable in this process
    /// (`UserDefaultsPreferences` in a process that read them before the first unlock, whose
    /// stale copy cannot be refreshed) would keep the launch screen up forever. The router stops
    /// waiting: a restored session counts as onboarding completed before this launch (the tour
    /// comes before any sign-in) and is kept, never discarded on a flag nobody could read;
    /// without a session, onboarding is shown.
    func decideWithoutOnboardingFlag(_ state: AuthState) {
        guard onboarding != nil, !inputs.onboardingKnown, state != .unknown else { return }
        // The store itself cannot be read yet: the next `active` decides.
        if case .signedOut(.storageFailure) = state { return }
        reloadPreferences()
        guard !inputs.onboardingKnown else { return }
        var next = inputs
        next.onboardingKnown = true
        next.onboardingCompleted = state.isSignedIn
        next.onboardingCompletedAtLaunch = state.isSignedIn
        logger.notice(
            "onboarding flag unreadable while the app is active; deciding without it",
            metadata: ["operation": "launch_route", "signed_in": "\(state.isSignedIn)"])
        inputs = next
    }

    /// The onboarding's last button: records completion and shows `next` (login or sign-up).
    /// Never leads straight to `main` on a session restored from the keychain.
    public func completeOnboarding(next: AuthScreen = .login) {
        onboarding?.setCompleted()
        inputs.authScreen = next
        inputs.onboardingCompleted = true
    }

    /// Switches between the login and sign-up forms.
    public func showAuth(_ screen: AuthScreen) {
        inputs.authScreen = screen
    }

    /// Signs out through the manager (cleanup steps included) and returns its report.
    @discardableResult
    public func signOut(scope: SignOutScope = .local) async -> SignOutReport {
        let report = await manager.signOut(scope: scope)
        if scope != .others {
            inputs.authScreen = .login
            appLock?.noteSignedOut()
        }
        await synchronize()
        return report
    }

    /// A login form wired to this router (an unconfirmed email leads to `verifyEmail`).
    public func makeLoginForm(passkeyOffer: PasskeyOffer? = nil) -> LoginFormModel {
        LoginFormModel(manager: manager, strings: strings, passkeyOffer: passkeyOffer) { [weak self] email, password in
            self?.awaitVerification(email: email, password: password)
        }
    }

    /// A sign-up form wired to this router (a confirmation email leads to `verifyEmail`).
    public func makeSignUpForm(
        rules: PasswordRules = .init(), requiresPasswordConfirmation: Bool = false, metadata: [String: JSONValue] = [:]
    ) -> SignUpFormModel {
        SignUpFormModel(
            manager: manager, rules: rules, requiresPasswordConfirmation: requiresPasswordConfirmation,
            metadata: metadata, strings: strings
        ) { [weak self] email, password in
            self?.awaitVerification(email: email, password: password)
        }
    }

    /// A form for the code from the authenticator app, wired to this router: once the code is
    /// verified the session is at `aal2` and the route moves on (to `main`, or `locked`).
    public func makeSecondFactorForm() -> SecondFactorFormModel {
        SecondFactorFormModel(manager: manager, strings: strings)
    }

    /// Leaves `verifySecondFactor` for the login form ("Use another account"): the `aal1`
    /// session is signed out.
    public func cancelSecondFactor() async {
        await signOut()
    }

    // MARK: - Following the manager

    func handle(_ event: SessionEvent) async {
        switch event {
        case .signedIn:
            apply(await manager.state, authenticated: true)
        case .signedOut:
            inputs.authScreen = .login
            appLock?.noteSignedOut()
            await synchronize()
        default:
            await synchronize()
        }
    }

    /// Reads the manager's current state (never stale, whatever order events arrive in).
    func synchronize() async {
        apply(await manager.state)
    }

    /// Publishes `state` in one route update. `authenticated`: a sign-in succeeded during this
    /// launch, so the session is trusted, a pending verification is over and the lock disengages.
    /// `endingStorageRecheck`: `state` is the outcome of the restore that becoming active started.
    func apply(_ state: AuthState, authenticated: Bool = false, endingStorageRecheck: Bool = false) {
        var next = inputs
        if endingStorageRecheck { next.recheckingStorage = false }
        if state != .unknown { next.checkTimedOut = false }
        next.authState = state
        if authenticated {
            next.authenticatedThisLaunch = true
            if state.isSignedIn { next.awaitingVerification = false }
        }
        if authenticated, state.isSignedIn {
            pendingVerificationEmail = nil
            pendingVerificationPassword = nil
            applying = true
            appLock?.noteSignedIn()
            applying = false
            next.isLocked = appLock?.isLocked ?? false
        }
        inputs = next
        discardUntrustedSessionIfNeeded()
    }

    private func discardUntrustedSessionIfNeeded() {
        guard configuration.discardsUntrustedSessions, inputs.hasOnboarding, inputs.onboardingKnown,
            !inputs.onboardingCompletedAtLaunch,
            !inputs.authenticatedThisLaunch, inputs.authState.isSignedIn, !discardingUntrusted
        else { return }
        discardingUntrusted = true
        logger.notice("a session restored before onboarding was completed is discarded", metadata: ["operation": "launch_route"])
        Task {
            await manager.signOut(scope: .local)
            discardingUntrusted = false
            await synchronize()
        }
    }

    private func lockChanged() {
        guard !applying else { return }
        inputs.isLocked = appLock?.isLocked ?? false
    }

    private func updateRoute() {
        let next = inputs.derive()
        guard next != route else { return }
        logger.debug("route changed", metadata: ["operation": "launch_route", "from": "\(route)", "to": "\(next)"])
        route = next
        history.append(next)
        if history.count > 100 { history.removeFirst(history.count - 100) }
    }
}
