import Foundation
import Latchkey
import Observation

/// The login form's behaviour, for a view to bind to.
///
/// - The email is trimmed and validated as you type; the password is never trimmed.
/// - ``canSubmit`` is false while the email is invalid, the password empty or a request is in
///   flight, and ``submit()`` checks it again, so a double tap sends one request.
/// - ``status`` drives the status text ("Signing in…") and, on failure, the error taxonomy's
///   presentation: title, message and action (Reset Password, Retry, Resend Email), all in the
///   words of the form's ``strings``.
/// - Every outcome produces a ``feedback`` event for haptics and every failure an
///   ``announcement`` for VoiceOver.
///
/// - ``providers`` are the sign-in providers the server has on (``apply(_:)`` with its
///   settings), Sign in with Apple first on Apple platforms; ``signIn(with:redirectTo:scopes:)``
///   opens one in the browser sheet, ``signInWithApple(_:nonce:)`` and
///   ``signIn(with:idToken:nonce:accessToken:)`` take a credential the app got itself. While
///   one runs, ``status`` is `inProgress(.providerSignIn(provider))`; a sheet the person closed
///   is `cancelled`, which shows nothing.
/// - ``offersPasskeySignIn`` says whether to show "Sign in with a Passkey" (the server has
///   passkeys on and the manager has an authenticator); ``signInWithPasskey(mediation:)`` runs
///   it. After a password sign-in the ``passkeyOffer``, when given, offers to add a passkey.
///
/// The session itself is the `SessionManager`'s; a successful sign-in moves the
/// ``LaunchRouter`` to `main` through the manager's events.
@MainActor
@Observable
public final class LoginFormModel: EmailPasswordForm {
    /// The email as typed. Editing clears a shown failure.
    public var email = "" {
        didSet { if email != oldValue { progress.clearFailure() } }
    }
    /// The password as typed, sent exactly as typed (leading and trailing spaces included).
    public var password = "" {
        didSet { if password != oldValue { progress.clearFailure() } }
    }
    /// Whether the password field shows its text ("eye" toggle).
    public var isPasswordVisible = false
    /// The sign-in providers to offer as buttons, in order (``apply(_:)``).
    public private(set) var providers: [IdentityProvider] = []
    /// Whether to offer "Sign in with a Passkey" (``apply(_:)``): the server has passkeys on and
    /// the manager has a passkey authenticator.
    public private(set) var offersPasskeySignIn = false
    private var progress = FormProgress()

    /// The words the form shows.
    @ObservationIgnored public let strings: AppFlowStrings
    @ObservationIgnored let manager: SessionManager
    @ObservationIgnored let onEmailNotConfirmed: (@MainActor (_ email: String, _ password: String) -> Void)?
    /// The offer to add a passkey after a password sign-in, when the form was given one.
    @ObservationIgnored public let passkeyOffer: PasskeyOffer?

    /// Creates a form.
    /// - Parameters:
    ///   - manager: The session manager that signs in.
    ///   - strings: The words the form shows.
    ///   - passkeyOffer: Offers to add a passkey after a password sign-in; `nil`: no offer.
    ///   - onEmailNotConfirmed: Called when the account exists but its email is not confirmed
    ///     yet; ``LaunchRouter/makeLoginForm(passkeyOffer:)`` wires it to the verify-email route.
    public init(
        manager: SessionManager, strings: AppFlowStrings = .init(), passkeyOffer: PasskeyOffer? = nil,
        onEmailNotConfirmed: (@MainActor (_ email: String, _ password: String) -> Void)? = nil
    ) {
        self.manager = manager
        self.strings = strings
        self.passkeyOffer = passkeyOffer
        self.onEmailNotConfirmed = onEmailNotConfirmed
    }

    /// Where the form stands.
    public var status: FormStatus { progress.status }
    /// Whether the Sign In button is enabled.
    public var canSubmit: Bool { emailValidation == .valid && !password.isEmpty && !isSubmitting }
    /// The Sign In button's title: "Signing in…" while in flight.
    public var submitTitle: String { status == .inProgress(.signIn) ? strings.inProgress(.signIn) : strings.signInButton }
    /// The status line under the form.
    public var statusText: String? { strings.text(for: status) }
    /// The latest haptic event.
    public var feedback: FormFeedback? { progress.feedback }
    /// The latest VoiceOver announcement.
    public var announcement: AccessibilityAnnouncement? { progress.announcement }

    /// Offers the providers the server has on, Sign in with Apple first on Apple platforms, and
    /// passkeys when the server has them on and the manager has an authenticator.
    public func apply(_ settings: AuthServerSettings) {
        providers = Self.ordered(settings.providers, appleFirst: Self.isApplePlatform)
        offersPasskeySignIn = settings.passkeysEnabled && manager.configuration.passkeyAuthenticator != nil
        passkeyOffer?.apply(settings)
    }

    /// `providers` in the order the form offers them: Apple first when `appleFirst` (Apple asks
    /// apps that offer other providers to offer Sign in with Apple as prominently), the others
    /// as given.
    static func ordered(_ providers: [IdentityProvider], appleFirst: Bool) -> [IdentityProvider] {
        guard appleFirst, providers.contains(.apple) else { return providers }
        return [.apple] + providers.filter { $0 != .apple }
    }

    static var isApplePlatform: Bool {
        #if canImport(Darwin)
        true
        #else
        false
        #endif
    }

    /// The button title for `provider`: "Sign in with Google".
    public func providerButtonTitle(_ provider: IdentityProvider) -> String {
        strings.providerSignInButton(strings.providerName(provider))
    }

    /// The provider whose sign-in is in flight, if any.
    public var providerInFlight: IdentityProvider? {
        if case .inProgress(.providerSignIn(let provider)) = status { provider } else { nil }
    }

    /// Signs in with `provider`'s page in the manager's browser sheet
    /// (`SessionManagerConfiguration.webAuthenticator`). Does nothing while a request is in
    /// flight; a closed sheet leaves the form `cancelled`.
    public func signIn(with provider: IdentityProvider, redirectTo: URL, scopes: String? = nil) async {
        await runProvider(provider) { [manager] in
            try await manager.account.signInWithOAuth(provider: provider, redirectTo: redirectTo, scopes: scopes)
        }
    }

    /// Signs in with an ID token the app got from `provider` (Google Sign-In…).
    public func signIn(with provider: IdentityProvider, idToken: String, nonce: String? = nil, accessToken: String? = nil) async {
        await runProvider(provider) { [manager] in
            .signedIn(try await manager.account.signInWithIdToken(provider: provider, idToken: idToken, nonce: nonce, accessToken: accessToken))
        }
    }

    /// Signs in with Sign in with Apple's credential, storing the name Apple gives the first
    /// time (`AuthAccount.signInWithApple(_:nonce:)`).
    public func signInWithApple(_ credential: AppleSignInCredential, nonce: SignInNonce?) async {
        await runProvider(.apple) { [manager] in
            .signedIn(try await manager.account.signInWithApple(credential, nonce: nonce))
        }
    }

    /// Records that the person closed a provider's sheet the app showed itself (Sign in with
    /// Apple's `ASAuthorizationError.canceled`): the form shows nothing and is ready again.
    public func providerSignInCancelled(_ provider: IdentityProvider) {
        progress.cancel(.providerSignIn(provider))
    }

    private func runProvider(_ provider: IdentityProvider, _ body: @Sendable () async throws -> WebSignInResult) async {
        guard !isSubmitting else { return }
        let operation = FormOperation.providerSignIn(provider)
        progress.begin(operation)
        do {
            switch try await body() {
            case .signedIn:
                password = ""
                progress.succeed(operation, announcing: strings.succeeded(operation))
            case .cancelled:
                progress.cancel(operation)
            }
        } catch {
            progress.fail(operation, error, strings)
        }
    }

    /// Signs in with a passkey the person picks (`AuthAccount.signInWithPasskey(mediation:)`);
    /// no email or password is needed. Does nothing while a request is in flight.
    ///
    /// With ``PasskeyRequestOptions/Mediation/modal`` the status is `inProgress(.passkeySignIn)`
    /// while the system sheet is up; a closed sheet leaves the form `cancelled`. With
    /// ``PasskeyRequestOptions/Mediation/autoFill`` (started when the form appears) the form stays
    /// usable while the request waits for a pick among the keyboard's suggestions: only a
    /// sign-in, or a failure other than an expired challenge, changes the status.
    public func signInWithPasskey(mediation: PasskeyRequestOptions.Mediation = .modal) async {
        let autoFill = mediation == .autoFill
        guard autoFill || !isSubmitting else { return }
        if !autoFill { progress.begin(.passkeySignIn) }
        do {
            switch try await manager.account.signInWithPasskey(mediation: mediation) {
            case .signedIn:
                password = ""
                progress.succeed(.passkeySignIn, announcing: strings.succeeded(.passkeySignIn))
            case .cancelled:
                if !autoFill { progress.cancel(.passkeySignIn) }
            }
        } catch {
            let failure = AuthFailure(error)
            if autoFill && (failure.code == "webauthn_challenge_expired" || failure.code == "cancelled") { return }
            progress.fail(.passkeySignIn, failure, strings)
        }
    }

    /// Signs in. Does nothing unless ``canSubmit``.
    public func submit() async {
        guard canSubmit else { return }
        let email = trimmedEmail
        let password = password
        progress.begin(.signIn)
        do {
            try await manager.account.signIn(email: email, password: password)
            self.password = ""
            progress.succeed(.signIn, announcing: strings.succeeded(.signIn))
            await passkeyOffer?.passwordSignInSucceeded()
        } catch {
            let failure = progress.fail(.signIn, error, strings)
            if failure.category == .emailNotConfirmed { onEmailNotConfirmed?(email, password) }
        }
    }

    /// "Forgot Password?": sends a reset link to the typed email.
    public func sendPasswordReset() async {
        await run(.passwordReset) { [manager, trimmedEmail] in try await manager.email.recoverPassword(email: trimmedEmail) }
    }

    /// Sends the confirmation email again (the action of "Email Not Verified").
    public func resendConfirmation() async {
        await run(.resendConfirmation) { [manager, trimmedEmail] in try await manager.email.resendConfirmation(email: trimmedEmail) }
    }

    /// Runs an email-only operation, when the email is valid and nothing is in flight.
    private func run(_ operation: FormOperation, _ body: @Sendable () async throws -> Void) async {
        guard emailValidation == .valid, !isSubmitting else { return }
        progress.begin(operation)
        do {
            try await body()
            progress.succeed(operation, announcing: strings.succeeded(operation))
        } catch {
            progress.fail(operation, error, strings)
        }
    }

    /// Performs the failure's suggested action: Reset Password, Retry, Resend Email; any other
    /// action just dismisses the failure (the view handles "Contact Support", "Sign In").
    public func performSuggestedAction() async {
        guard let action = failure?.action else { return }
        switch action {
        case .resetPassword: await sendPasswordReset()
        case .retry:
            // A provider's sheet is opened again by its button, with the app's redirect.
            if case .failed(.providerSignIn, _) = status { dismissFailure() } else { await submit() }
        case .resendVerification: await resendConfirmation()
        default: dismissFailure()
        }
    }

    /// Hides the failure (the alert was dismissed).
    public func dismissFailure() { progress.clearFailure() }
    /// The password field's clear button.
    public func clearPassword() { password = "" }
}
