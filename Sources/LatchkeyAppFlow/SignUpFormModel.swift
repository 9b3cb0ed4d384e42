import Foundation
import Latchkey
import Observation

/// What a sign-up produced, from the form's point of view.
public enum SignUpOutcome: Sendable, Hashable {
    /// The account was confirmed at once and the user is signed in.
    case signedIn
    /// The account exists; a confirmation email was sent to this address.
    case confirmationRequired(email: String)
}

/// The sign-up form: the login form's behaviour (trimmed, validated email; untrimmed password;
/// visibility toggle; in-flight guard; status text; taxonomy failures; feedback and
/// announcements) plus the server's password rules and an optional confirmation field.
@MainActor
@Observable
public final class SignUpFormModel: EmailPasswordForm {
    /// The email as typed.
    public var email = "" {
        didSet { if email != oldValue { progress.clearFailure() } }
    }
    /// The password as typed, never trimmed.
    public var password = "" {
        didSet { if password != oldValue { progress.clearFailure() } }
    }
    /// The repeated password, checked only when ``requiresPasswordConfirmation``.
    public var confirmPassword = ""
    /// Whether the password fields show their text.
    public var isPasswordVisible = false
    /// The password rules in force (load the server's with ``apply(_:)``).
    public private(set) var rules: PasswordRules
    /// Whether the server refuses new accounts.
    public private(set) var signUpDisabled = false
    /// What the last successful submit produced.
    public private(set) var outcome: SignUpOutcome?
    private var progress = FormProgress()

    /// Whether the form asks for the password twice.
    @ObservationIgnored public let requiresPasswordConfirmation: Bool
    /// The words the form shows.
    @ObservationIgnored public let strings: AppFlowStrings
    @ObservationIgnored let manager: SessionManager
    @ObservationIgnored let metadata: [String: JSONValue]
    @ObservationIgnored let onConfirmationRequired: (@MainActor (_ email: String, _ password: String) -> Void)?

    /// Creates a form.
    /// - Parameters:
    ///   - manager: The session manager that creates the account.
    ///   - rules: The password rules until the server's are applied.
    ///   - requiresPasswordConfirmation: Whether to ask for the password twice. Default `false`
    ///     (the visibility toggle makes typos visible instead).
    ///   - metadata: User metadata sent with the sign-up (display name…).
    ///   - strings: The words the form shows.
    ///   - onConfirmationRequired: Called when the account needs its email confirmed;
    ///     ``LaunchRouter/makeSignUpForm(rules:requiresPasswordConfirmation:metadata:)`` wires it to the verify-email route.
    public init(
        manager: SessionManager, rules: PasswordRules = .init(), requiresPasswordConfirmation: Bool = false,
        metadata: [String: JSONValue] = [:], strings: AppFlowStrings = .init(),
        onConfirmationRequired: (@MainActor (_ email: String, _ password: String) -> Void)? = nil
    ) {
        self.manager = manager
        self.rules = rules
        self.requiresPasswordConfirmation = requiresPasswordConfirmation
        self.metadata = metadata
        self.strings = strings
        self.onConfirmationRequired = onConfirmationRequired
    }

    /// Applies the server's settings: its password rules, and whether sign-up is open.
    public func apply(_ settings: AuthServerSettings) {
        rules = settings.passwordRules
        signUpDisabled = settings.signUpDisabled
    }

    /// Where the form stands.
    public var status: FormStatus { progress.status }
    /// What is wrong with the password so far (nothing while the field is empty).
    public var passwordProblems: [PasswordProblem] { password.isEmpty ? [] : rules.problems(in: password) }
    /// The hints under the password field, in order.
    public var passwordMessages: [String] { passwordProblems.map(strings.passwordProblem) }
    /// Whether the confirmation matches (always true when it is not asked for).
    public var passwordsMatch: Bool { !requiresPasswordConfirmation || confirmPassword == password }
    /// Says the confirmation differs, once something was typed in it.
    public var confirmationMessage: String? {
        passwordsMatch || confirmPassword.isEmpty ? nil : strings.passwordsDoNotMatch
    }
    /// Whether the Create Account button is enabled.
    public var canSubmit: Bool {
        !signUpDisabled && emailValidation == .valid && !password.isEmpty && rules.problems(in: password).isEmpty
            && passwordsMatch && !isSubmitting
    }
    /// The button's title: "Creating account…" while in flight.
    public var submitTitle: String { isSubmitting ? strings.inProgress(.signUp) : strings.createAccountButton }
    /// The status line: progress, success, "check your email", the failure, or sign-up closed.
    public var statusText: String? {
        if signUpDisabled { return strings.signUpDisabled }
        if case .confirmationRequired(let email) = outcome, status == .succeeded(.signUp) {
            return strings.confirmationSent(email)
        }
        return strings.text(for: status)
    }
    /// The latest haptic event.
    public var feedback: FormFeedback? { progress.feedback }
    /// The latest VoiceOver announcement.
    public var announcement: AccessibilityAnnouncement? { progress.announcement }

    /// Creates the account. Does nothing unless ``canSubmit``.
    public func submit() async {
        guard canSubmit else { return }
        let email = trimmedEmail
        let password = password
        progress.begin(.signUp)
        outcome = nil
        do {
            let result = try await manager.account.signUp(email: email, password: password, data: metadata)
            self.password = ""
            confirmPassword = ""
            switch result {
            case .signedIn:
                outcome = .signedIn
                progress.succeed(.signUp, announcing: strings.succeeded(.signUp))
            case .confirmationRequired:
                outcome = .confirmationRequired(email: email)
                progress.succeed(.signUp, announcing: strings.confirmationSentAnnouncement)
                onConfirmationRequired?(email, password)
            }
        } catch {
            progress.fail(.signUp, error, strings)
        }
    }

    /// Hides the failure.
    public func dismissFailure() { progress.clearFailure() }
    /// The password field's clear button (clears the confirmation too).
    public func clearPassword() {
        password = ""
        confirmPassword = ""
    }
}
