/// Something a form sends to the server.
public enum FormOperation: Sendable, Hashable {
    case signIn
    case signUp
    case passwordReset
    case resendConfirmation
    /// "I've verified my email", or a confirmation code.
    case emailVerification

    /// The status text while it runs, e.g. "Signing in…".
    public var progressText: String {
        switch self {
        case .signIn: "Signing in…"
        case .signUp: "Creating account…"
        case .passwordReset: "Sending reset email…"
        case .resendConfirmation: "Sending confirmation email…"
        case .emailVerification: "Checking your confirmation…"
        }
    }

    /// The status text once it succeeded.
    public var successText: String {
        switch self {
        case .signIn: "Signed in"
        case .signUp: "Account created"
        case .passwordReset: "Check your email for a link to reset your password."
        case .resendConfirmation: "Confirmation email sent. Check your inbox."
        case .emailVerification: "Email confirmed"
        }
    }
}

/// Where a form stands.
public enum FormStatus: Sendable, Hashable {
    /// Waiting for input.
    case idle
    /// A request is in flight: the submit button is disabled, so a double tap sends one request.
    case inProgress(FormOperation)
    /// The operation succeeded.
    case succeeded(FormOperation)
    /// The operation failed; show ``AuthFailure/presentation`` (never a raw error).
    case failed(FormOperation, AuthFailure)

    /// Whether a request is in flight.
    public var isInProgress: Bool {
        if case .inProgress = self { true } else { false }
    }

    /// The failure, when the last operation failed.
    public var failure: AuthFailure? {
        if case .failed(_, let failure) = self { failure } else { nil }
    }

    /// The status line: "Signing in…", "Signed in", or the failure's message.
    public var text: String? {
        switch self {
        case .idle: nil
        case .inProgress(let operation): operation.progressText
        case .succeeded(let operation): operation.successText
        case .failed(_, let failure): failure.presentation.message
        }
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

/// The feedback and announcement a form publishes, with one counter for both.
struct FormSignals: Sendable, Hashable {
    private(set) var feedback: FormFeedback?
    private(set) var announcement: AccessibilityAnnouncement?
    private var sequence = 0

    mutating func succeeded(_ text: String) {
        sequence += 1
        feedback = FormFeedback(kind: .success, sequence: sequence)
        announcement = AccessibilityAnnouncement(text: text, sequence: sequence)
    }

    mutating func failed(_ failure: AuthFailure) {
        sequence += 1
        let presentation = failure.presentation
        feedback = FormFeedback(kind: .error, sequence: sequence)
        announcement = AccessibilityAnnouncement(text: "\(presentation.title): \(presentation.message)", sequence: sequence)
    }
}
