import Latchkey

/// Every word the app-flow models show people: status lines, button titles, validation hints,
/// failure alerts, VoiceOver announcements, lock-screen messages, biometric prompts and the
/// session-expiry alert. The defaults are English.
///
/// To localize, start from the defaults, replace what you translate, and pass the result to each
/// model (``LaunchRouter``, ``LoginFormModel``, ``SignUpFormModel``, ``AppLock``,
/// ``SessionExpiryWarning``); the forms a router makes inherit the router's strings.
///
/// ```swift
/// var strings = AppFlowStrings()
/// strings.signInButton = String(localized: "Sign In")
/// strings.inProgress = { operation in
///     operation == .signIn ? String(localized: "Signing in…") : AppFlowStrings().inProgress(operation)
/// }
/// strings.failure = { failure in MyErrorCatalogue.presentation(for: failure) }
/// let router = LaunchRouter(manager: manager, strings: strings)
/// ```
///
/// Failures read ``failure`` (by default Latchkey's `AuthFailure.presentation`) and button
/// labels read ``actionLabel`` (by default `AuthFailure.SuggestedAction.label`), so an app can
/// translate the whole error taxonomy here too.
public struct AppFlowStrings: Sendable {
    // MARK: Forms

    /// The status line while an operation runs, e.g. "Signing in…" (also the Sign In button's
    /// title while signing in).
    public var inProgress: @Sendable (FormOperation) -> String = { operation in
        switch operation {
        case .signIn: "Signing in…"
        case .signUp: "Creating account…"
        case .passwordReset: "Sending reset email…"
        case .resendConfirmation: "Sending confirmation email…"
        case .emailVerification: "Checking your confirmation…"
        case .secondFactorVerification: "Checking the code…"
        case .providerSignIn: "Signing in…"
        case .passkeySignIn: "Signing in…"
        case .addPasskey: "Adding passkey…"
        case .reauthentication: "Sending a code…"
        case .accountDeletion: "Deleting account…"
        }
    }

    /// The status line, and the VoiceOver announcement, once an operation succeeded.
    public var succeeded: @Sendable (FormOperation) -> String = { operation in
        switch operation {
        case .signIn: "Signed in"
        case .signUp: "Account created"
        case .passwordReset: "Check your email for a link to reset your password."
        case .resendConfirmation: "Confirmation email sent. Check your inbox."
        case .emailVerification: "Email confirmed"
        case .secondFactorVerification: "Verified"
        case .providerSignIn: "Signed in"
        case .passkeySignIn: "Signed in"
        case .addPasskey: "Passkey added"
        case .reauthentication: "Code sent. Check your email."
        case .accountDeletion: "Account deleted"
        }
    }

    /// The login form's button.
    public var signInButton = "Sign In"
    /// A provider's name as people know it: "Apple", "Google"; an unknown provider's name
    /// capitalized.
    public var providerName: @Sendable (IdentityProvider) -> String = { provider in
        switch provider {
        case .apple: "Apple"
        case .google: "Google"
        case .github: "GitHub"
        case .azure: "Microsoft"
        case .keycloak: "Keycloak"
        default: provider.rawValue.prefix(1).uppercased() + provider.rawValue.dropFirst()
        }
    }
    /// The login form's button for a provider, given its ``providerName``: "Sign in with Google".
    public var providerSignInButton: @Sendable (_ provider: String) -> String = { "Sign in with \($0)" }
    /// The login form's passkey button.
    public var passkeySignInButton = "Sign in with a Passkey"
    /// The title of the offer to add a passkey after a password sign-in.
    public var passkeyOfferTitle = "Sign In Faster"
    /// The offer's sentence.
    public var passkeyOfferMessage = "Add a passkey to sign in with Face ID or Touch ID instead of your password."
    /// The offer's accepting button.
    public var addPasskeyButton = "Add Passkey"
    /// The offer's declining button.
    public var notNowButton = "Not Now"
    /// The sign-up form's button.
    public var createAccountButton = "Create Account"
    /// The sign-up form's status line when the server refuses new accounts.
    public var signUpDisabled = "Sign-up is currently disabled."
    /// The sign-up form's status line when the account must be confirmed by email.
    public var confirmationSent: @Sendable (_ email: String) -> String = { email in
        "Check your email (\(email)) to confirm your account."
    }
    /// The VoiceOver announcement of a sign-up that needs email confirmation.
    public var confirmationSentAnnouncement = "Account created. Check your email to confirm it."
    /// The second-factor form's instruction.
    public var secondFactorPrompt = "Enter the 6-digit code from your authenticator app."
    /// The second-factor form's button.
    public var verifyCodeButton = "Verify"

    // MARK: Deleting the account

    /// What the confirmation step says before anything is deleted.
    public var deleteAccountWarning =
        "Deleting your account removes it and everything it holds from our servers, and signs you out on every device. This cannot be undone."
    /// The confirmation step's button.
    public var deleteAccountConfirmButton = "Continue"
    /// The reauthentication step's instruction, for a code sent by email (or text).
    public var deleteAccountCodePrompt = "To confirm it is you, enter the code we just sent you."
    /// The reauthentication step's instruction, for an account with a second factor.
    public var deleteAccountSecondFactorPrompt = "To confirm it is you, enter the 6-digit code from your authenticator app."
    /// The reauthentication step's instruction, for an account whose second factor is a phone.
    public var deleteAccountPhoneFactorPrompt = "To confirm it is you, enter the code we just texted to your phone."
    /// The final, destructive button.
    public var deleteAccountButton = "Delete Account"
    /// The hint under a malformed email address.
    public var invalidEmail = "Enter a valid email address."
    /// The hint under a password confirmation that differs from the password.
    public var passwordsDoNotMatch = "The passwords don't match."
    /// The hint under a password that breaks the server's rules.
    public var passwordProblem: @Sendable (PasswordProblem) -> String = { problem in
        switch problem {
        case .tooShort(let minimum): "Use at least \(minimum) characters."
        case .tooLong: "That password is too long. Use a shorter one."
        }
    }
    /// A failure's title, message and suggested action. Default: `AuthFailure.presentation`.
    public var failure: @Sendable (AuthFailure) -> AuthFailure.Presentation = { $0.presentation }
    /// The button label of a suggested action. Default: `AuthFailure.SuggestedAction.label`.
    public var actionLabel: @Sendable (AuthFailure.SuggestedAction) -> String = { $0.label }
    /// What VoiceOver announces for a failure.
    public var failureAnnouncement: @Sendable (AuthFailure.Presentation) -> String = { presentation in
        "\(presentation.title): \(presentation.message)"
    }

    // MARK: App lock

    /// The name of the device's biometry, e.g. "Face ID".
    public var biometryName: @Sendable (BiometryKind) -> String = { kind in
        switch kind {
        case .none: "Biometric authentication"
        case .faceID: "Face ID"
        case .touchID: "Touch ID"
        case .opticID: "Optic ID"
        }
    }
    /// The lock screen's unlock button, given the biometry's name: "Unlock with Face ID".
    public var unlockButton: @Sendable (_ biometry: String) -> String = { "Unlock with \($0)" }
    /// The explicit passcode fallback: the lock screen's button and the biometric dialog's.
    public var usePasscode = "Use Passcode"
    /// The reason shown in the biometric prompt.
    public var unlockReason = "Unlock to continue."
    /// The reason shown in the passcode prompt.
    public var passcodeReason = "Enter your device passcode."
    /// The reason shown when turning the lock on.
    public var enableReason = "Turn on app lock."
    /// The one-time hint's title, given the biometry's name: "Enable Face ID?".
    public var enableHintTitle: @Sendable (_ biometry: String) -> String = { "Enable \($0)?" }
    /// The one-time hint's message, given the biometry's name.
    public var enableHintMessage: @Sendable (_ biometry: String) -> String = { "Unlock quickly and securely with \($0)." }
    /// What the lock screen says after a failed attempt, given the biometry's name; `nil` says
    /// nothing (a cancellation: nobody did anything wrong).
    public var biometricFailure: @Sendable (BiometricError, _ biometry: String) -> String? = { error, name in
        switch error {
        case .biometryLockout: "Too many failed attempts. Use your device passcode to unlock."
        case .biometryNotEnrolled: "\(name) is not set up. Please enable it in Settings."
        case .biometryNotAvailable: "\(name) is not available on this device."
        case .userCancel, .systemCancel, .appCancel: nil
        case .userFallback: "Please use your device passcode."
        case .passcodeNotSet: "Please set a device passcode in Settings to use \(name)."
        case .authenticationFailed: "\(name) authentication failed. Please try again."
        case .invalidContext, .notInteractive, .unknown, .other: "Unable to authenticate. Please try again."
        }
    }
    /// The notice when biometrics became unavailable while the lock is on, for errors that
    /// ``biometricFailure`` says nothing about.
    public var biometricsUnavailable: @Sendable (_ biometry: String) -> String = { name in
        "\(name) is not available. Use your device passcode to unlock."
    }

    // MARK: Session expiry

    /// The expiry alert's title.
    public var sessionExpiringTitle = "Session Expiring Soon"
    /// The expiry alert's message, given the whole minutes left (0 for less than a minute).
    public var sessionExpiringMessage: @Sendable (_ minutes: Int) -> String = { minutes in
        let time =
            switch minutes {
            case ..<1: "less than a minute"
            case 1: "1 minute"
            default: "\(minutes) minutes"
            }
        return "Your session will expire in \(time). Would you like to stay signed in?"
    }
    /// The expiry alert's button that keeps the user signed in.
    public var staySignedIn = "Stay Signed In"
    /// The expiry alert's button that signs out now.
    public var signOut = "Sign Out"

    /// The English defaults.
    public init() {}

    /// The status line for `status`: progress, success, or the failure's message.
    public func text(for status: FormStatus) -> String? {
        switch status {
        case .idle: nil
        case .inProgress(let operation): inProgress(operation)
        case .succeeded(let operation): succeeded(operation)
        case .failed(_, let failure): self.failure(failure).message
        case .cancelled: nil
        }
    }

    /// The hint under an email field, or `nil`.
    public func text(for validation: EmailValidation) -> String? {
        validation == .invalid ? invalidEmail : nil
    }
}
