import Foundation
import Latchkey
import Observation

/// The second-factor screen's behaviour (route `verifySecondFactor`): the 6-digit code from the
/// authenticator app, for a view to bind to.
///
/// - Only digits are kept as typed, at most six (spaces from a pasted "123 456" are dropped).
/// - ``canSubmit`` is true with six digits and nothing in flight; ``submit()`` checks it again,
///   so a double tap sends one request.
/// - A wrong or expired code shows the failure's presentation ("Incorrect Code") and empties
///   the field for the next code; the session stays as it was.
/// - Every outcome produces a ``feedback`` event for haptics and every failure an
///   ``announcement`` for VoiceOver.
///
/// A verified code brings the session to `aal2`; the ``LaunchRouter`` moves on through the
/// manager's events.
@MainActor
@Observable
public final class SecondFactorFormModel {
    /// The number of digits of a code.
    public static let codeLength = 6

    /// The code as typed: digits only, at most ``codeLength``. Editing clears a shown failure.
    public var code = "" {
        didSet {
            let digits = String(code.filter { $0.isASCII && $0.isNumber }.prefix(Self.codeLength))
            if digits != code { code = digits }
            if code != oldValue { progress.clearFailure() }
        }
    }
    /// The factor to verify; `nil` (the default) picks the session's first verified
    /// authenticator-app factor.
    public var factorID: String?
    private var progress = FormProgress()

    /// The words the form shows.
    @ObservationIgnored public let strings: AppFlowStrings
    @ObservationIgnored let manager: SessionManager

    /// Creates a form.
    /// - Parameters:
    ///   - manager: The session manager whose session the code raises to `aal2`.
    ///   - strings: The words the form shows.
    public init(manager: SessionManager, strings: AppFlowStrings = .init()) {
        self.manager = manager
        self.strings = strings
    }

    /// Where the form stands.
    public var status: FormStatus { progress.status }
    /// Whether a request is in flight.
    public var isSubmitting: Bool { status.isInProgress }
    /// Whether the Verify button is enabled.
    public var canSubmit: Bool { code.count == Self.codeLength && !isSubmitting }
    /// The instruction above the field.
    public var prompt: String { strings.secondFactorPrompt }
    /// The Verify button's title: "Checking the code…" while in flight.
    public var submitTitle: String {
        isSubmitting ? strings.inProgress(.secondFactorVerification) : strings.verifyCodeButton
    }
    /// The status line under the field.
    public var statusText: String? { strings.text(for: status) }
    /// The last failure's title, message and suggested action.
    public var failure: AuthFailure.Presentation? { status.failure.map(strings.failure) }
    /// The latest haptic event.
    public var feedback: FormFeedback? { progress.feedback }
    /// The latest VoiceOver announcement.
    public var announcement: AccessibilityAnnouncement? { progress.announcement }

    /// Verifies the code (a new challenge, then the code against it). Does nothing unless
    /// ``canSubmit``.
    public func submit() async {
        guard canSubmit else { return }
        let code = code
        progress.begin(.secondFactorVerification)
        do {
            let factor: String
            if let factorID {
                factor = factorID
            } else if let first = await manager.currentSession?.user.factors.first(where: \.isVerifiedTOTP) {
                factor = first.id
            } else {
                throw AuthFailure(.invalidInput, code: "mfa_factor_not_found")
            }
            try await manager.mfa.challengeAndVerify(factorID: factor, code: code)
            progress.succeed(.secondFactorVerification, announcing: strings.succeeded(.secondFactorVerification))
            self.code = ""
        } catch {
            progress.fail(.secondFactorVerification, error, strings)
            // Ready for the next code; the failure stays shown until the person types.
            let failed = progress
            self.code = ""
            progress = failed
        }
    }

    /// Hides the failure (the alert was dismissed).
    public func dismissFailure() { progress.clearFailure() }
}
