import Foundation
import Latchkey

/// Something a form sends to the server.
public enum FormOperation: Sendable, Hashable {
    case signIn
    case signUp
    case passwordReset
    case resendConfirmation
    /// "I've verified my email", or a confirmation code.
    case emailVerification
    /// A code from an authenticator app (the second factor).
    case secondFactorVerification
    /// Signing in with a provider: Sign in with Apple, Google, or a provider's page in the
    /// browser.
    case providerSignIn(IdentityProvider)
    /// Signing in with a passkey.
    case passkeySignIn
    /// Adding a passkey to the signed-in account.
    case addPasskey
    /// Asking the server to mail (or text) a reauthentication code.
    case reauthentication
    /// Deleting the signed-in account.
    case accountDeletion
}

/// Where a form stands.
public enum FormStatus: Sendable, Hashable {
    /// Waiting for input.
    case idle
    /// A request is in flight: the submit button is disabled, so a double tap sends one request.
    case inProgress(FormOperation)
    /// The operation succeeded.
    case succeeded(FormOperation)
    /// The operation failed; show the failure's presentation (never a raw error).
    case failed(FormOperation, AuthFailure)
    /// The person closed the provider's sheet: nothing to show, and the form is ready again.
    case cancelled(FormOperation)

    /// Whether a request is in flight.
    public var isInProgress: Bool {
        if case .inProgress = self { true } else { false }
    }

    /// The failure, when the last operation failed.
    public var failure: AuthFailure? {
        if case .failed(_, let failure) = self { failure } else { nil }
    }
}

/// A success or error to play as haptic feedback. ``sequence`` grows with every event, so two
/// errors in a row are two changes (bind it to SwiftUI's `sensoryFeedback(_:trigger:)`).
public struct FormFeedback: Sendable, Hashable {
    /// What kind of haptic to play.
    public enum Kind: Sendable, Hashable {
        case success
        case error
    }

    public let kind: Kind
    public let sequence: Int
}

/// A sentence for VoiceOver to announce (every failure produces one).
public struct AccessibilityAnnouncement: Sendable, Hashable {
    public let text: String
    public let sequence: Int
}

/// Where a form stands, with the haptic and VoiceOver events it publishes (one counter for
/// both, so two failures in a row are two changes).
struct FormProgress: Sendable {
    private(set) var status: FormStatus = .idle
    private(set) var feedback: FormFeedback?
    private(set) var announcement: AccessibilityAnnouncement?
    private var sequence = 0

    mutating func begin(_ operation: FormOperation) {
        status = .inProgress(operation)
    }

    /// Records that the person cancelled `operation`: no haptic, no announcement.
    mutating func cancel(_ operation: FormOperation) {
        status = .cancelled(operation)
    }

    mutating func succeed(_ operation: FormOperation, announcing text: String) {
        status = .succeeded(operation)
        publish(.success, text)
    }

    /// Records that `operation` failed with `error`, in `strings`' words, and returns the failure.
    @discardableResult
    mutating func fail(_ operation: FormOperation, _ error: any Error, _ strings: AppFlowStrings) -> AuthFailure {
        let failure = AuthFailure(error)
        status = .failed(operation, failure)
        publish(.error, strings.failureAnnouncement(strings.failure(failure)))
        return failure
    }

    /// Back to waiting for input, whatever the last status (the events' counter keeps counting).
    mutating func reset() {
        status = .idle
    }

    /// Hides a shown failure (the person edited the form or dismissed the alert).
    mutating func clearFailure() {
        if status.failure != nil { status = .idle }
    }

    private mutating func publish(_ kind: FormFeedback.Kind, _ text: String) {
        sequence += 1
        feedback = FormFeedback(kind: kind, sequence: sequence)
        announcement = AccessibilityAnnouncement(text: text, sequence: sequence)
    }
}

/// What the login and sign-up forms share: a typed email, a status, and the hints, failure words
/// and actions that follow from them, in the form's ``strings``.
@MainActor
public protocol EmailPasswordForm: AnyObject {
    /// The email as typed.
    var email: String { get set }
    /// Whether the password field shows its text ("eye" toggle).
    var isPasswordVisible: Bool { get set }
    /// Where the form stands.
    var status: FormStatus { get }
    /// The words the form shows.
    var strings: AppFlowStrings { get }
}

extension EmailPasswordForm {
    /// The email without surrounding whitespace: what is sent.
    public var trimmedEmail: String { email.trimmingCharacters(in: .whitespacesAndNewlines) }
    /// The as-you-type verdict on the email.
    public var emailValidation: EmailValidation { EmailValidation(email) }
    /// The hint under the email field, or `nil`.
    public var emailMessage: String? { strings.text(for: emailValidation) }
    /// Whether a request is in flight.
    public var isSubmitting: Bool { status.isInProgress }
    /// The last failure's title, message and suggested action.
    public var failure: AuthFailure.Presentation? { status.failure.map(strings.failure) }
    /// The label of the failure's suggested action, e.g. "Reset Password".
    public var failureActionLabel: String? { failure.map { strings.actionLabel($0.action) } }
    /// The email field's clear button.
    public func clearEmail() { email = "" }
    /// The password field's "eye" button.
    public func togglePasswordVisibility() { isPasswordVisible.toggle() }
}
