import Foundation
import Latchkey
import Observation

/// The "Delete Account" screen's behaviour, as App Review asks of an app that lets people create
/// an account (guideline 5.1.1(v)): confirm, prove it is the account's owner, then delete.
///
/// 1. ``Step/confirm``: show ``warning`` and a button calling ``confirm()``. Nothing is sent
///    before it.
/// 2. ``confirm()`` picks the proof the server asks for:
///    - an account with a verified authenticator-app factor: ``Step/enterSecondFactorCode``, the
///      6-digit code from the app (verified, which raises the session to `aal2`, then sent);
///    - an account whose verified second factor is a phone: the factor is challenged (a code
///      is texted to its number) and ``Step/enterSecondFactorCode`` asks for that code, verified
///      against that challenge; ``resendCode()`` texts another;
///    - an anonymous user (no address to send a code to): deletes at once;
///    - any other account: a code is mailed (or texted) with
///      ``AuthAccount/reauthenticate()``, and ``Step/enterCode`` asks for it.
/// 3. ``submit()`` deletes with the code. A wrong or expired code shows the failure and empties
///    the field; ``resendCode()`` sends another. ``cancel()`` goes back to the start at any time
///    before the deletion.
/// 4. ``Step/deleted``: the account is gone, the stored session wiped through the manager's
///    cleanup steps (``AuthAccount/delete(reauthentication:)``); the ``LaunchRouter`` moves to
///    its signed-out route through the manager's events.
///
/// Every outcome produces a ``feedback`` event for haptics and every failure an
/// ``announcement`` for VoiceOver. Needs Latchkey's server with `--allow-self-deletion`.
@MainActor
@Observable
public final class DeleteAccountModel {
    /// Where the screen stands.
    public enum Step: Sendable, Hashable {
        /// The warning and a button to go on; nothing sent yet.
        case confirm
        /// A code was sent by email (or text): enter it.
        case enterCode
        /// Enter the code from the authenticator app.
        case enterSecondFactorCode
        /// The account was deleted and this device signed out.
        case deleted
    }

    /// The number of digits of a code.
    public static let codeLength = 6

    /// The current step.
    public private(set) var step: Step = .confirm
    /// The code as typed: digits only, at most ``codeLength``. Editing clears a shown failure.
    public var code = "" {
        didSet {
            let digits = String(code.filter { $0.isASCII && $0.isNumber }.prefix(Self.codeLength))
            if digits != code { code = digits }
            if code != oldValue { progress.clearFailure() }
        }
    }
    /// The factor whose code ``Step/enterSecondFactorCode`` asks for.
    public private(set) var factorID: String?
    /// The challenge of a phone factor whose texted code ``Step/enterSecondFactorCode`` asks for.
    public private(set) var phoneChallengeID: String?
    private var progress = FormProgress()

    /// The words the screen shows.
    @ObservationIgnored public let strings: AppFlowStrings
    @ObservationIgnored let manager: SessionManager

    /// Creates the model for the signed-in user of `manager`.
    public init(manager: SessionManager, strings: AppFlowStrings = .init()) {
        self.manager = manager
        self.strings = strings
    }

    /// Where the last request stands.
    public var status: FormStatus { progress.status }
    /// Whether a request is in flight.
    public var isSubmitting: Bool { status.isInProgress }
    /// What will be lost, shown at ``Step/confirm``.
    public var warning: String { strings.deleteAccountWarning }
    /// The instruction above the code field.
    public var prompt: String? {
        switch step {
        case .enterCode: strings.deleteAccountCodePrompt
        case .enterSecondFactorCode: phoneChallengeID == nil ? strings.deleteAccountSecondFactorPrompt : strings.deleteAccountPhoneFactorPrompt
        case .confirm, .deleted: nil
        }
    }
    /// Whether the final Delete Account button is enabled.
    public var canSubmit: Bool {
        (step == .enterCode || step == .enterSecondFactorCode) && code.count == Self.codeLength && !isSubmitting
    }
    /// The status line.
    public var statusText: String? { strings.text(for: status) }
    /// The last failure's title, message and suggested action.
    public var failure: AuthFailure.Presentation? { status.failure.map(strings.failure) }
    /// The latest haptic event.
    public var feedback: FormFeedback? { progress.feedback }
    /// The latest VoiceOver announcement.
    public var announcement: AccessibilityAnnouncement? { progress.announcement }

    /// The person confirmed: finds the proof the server needs and asks for it (or, for an
    /// anonymous user, deletes at once). Does nothing unless at ``Step/confirm``.
    public func confirm() async {
        guard step == .confirm, !isSubmitting else { return }
        progress.begin(.reauthentication)
        do {
            let session = try await manager.session(minTTL: 30)
            if session.user.isAnonymous, session.user.email == nil, session.user.phone == nil {
                progress.succeed(.reauthentication, announcing: strings.succeeded(.reauthentication))
                await delete(.sessionOnly)
                return
            }
            let factors = try await manager.mfa.listFactors()
            if let factor = factors.first(where: \.isVerifiedTOTP) {
                factorID = factor.id
                phoneChallengeID = nil
                code = ""
                step = .enterSecondFactorCode
                progress.reset()
                return
            }
            if let factor = factors.first(where: \.isVerifiedPhone) {
                let challenge = try await manager.mfa.challenge(factorID: factor.id, channel: .sms)
                factorID = factor.id
                phoneChallengeID = challenge.id
                code = ""
                step = .enterSecondFactorCode
                progress.succeed(.reauthentication, announcing: strings.succeeded(.reauthentication))
                return
            }
            try await manager.account.reauthenticate()
            code = ""
            step = .enterCode
            progress.succeed(.reauthentication, announcing: strings.succeeded(.reauthentication))
        } catch {
            _ = progress.fail(.reauthentication, error, strings)
        }
    }

    /// Sends another code: by email (or text) at ``Step/enterCode``; a new text to the phone
    /// factor at ``Step/enterSecondFactorCode`` when it is a phone's (the earlier code then
    /// verifies nothing). Nothing for an authenticator app.
    public func resendCode() async {
        guard step == .enterCode || (step == .enterSecondFactorCode && phoneChallengeID != nil), !isSubmitting else { return }
        progress.begin(.reauthentication)
        do {
            if step == .enterSecondFactorCode, let factorID {
                phoneChallengeID = try await manager.mfa.challenge(factorID: factorID, channel: .sms).id
            } else {
                try await manager.account.reauthenticate()
            }
            code = ""
            progress.succeed(.reauthentication, announcing: strings.succeeded(.reauthentication))
        } catch {
            _ = progress.fail(.reauthentication, error, strings)
        }
    }

    /// Deletes the account with the code entered. Does nothing unless ``canSubmit``.
    public func submit() async {
        guard canSubmit else { return }
        let code = code
        switch step {
        case .enterCode:
            await delete(.nonce(code))
        case .enterSecondFactorCode:
            guard let factorID else { return }
            progress.begin(.accountDeletion)
            do {
                if let phoneChallengeID {
                    try await manager.mfa.verify(factorID: factorID, challengeID: phoneChallengeID, code: code)
                } else {
                    try await manager.mfa.challengeAndVerify(factorID: factorID, code: code)
                }
            } catch {
                self.code = ""  // before the failure: editing the code clears a shown failure
                _ = progress.fail(.accountDeletion, error, strings)
                return
            }
            await delete(.recentSecondFactor)
        case .confirm, .deleted:
            return
        }
    }

    /// Goes back to ``Step/confirm``; nothing is deleted. Not once deleted.
    public func cancel() {
        guard step != .deleted, !isSubmitting else { return }
        step = .confirm
        code = ""
        factorID = nil
        phoneChallengeID = nil
        progress.reset()
    }

    private func delete(_ reauthentication: AccountReauthentication) async {
        if !isSubmitting { progress.begin(.accountDeletion) }
        do {
            try await manager.account.delete(reauthentication: reauthentication)
            step = .deleted
            code = ""
            progress.succeed(.accountDeletion, announcing: strings.succeeded(.accountDeletion))
        } catch {
            code = ""  // before the failure: editing the code clears a shown failure
            _ = progress.fail(.accountDeletion, error, strings)
        }
    }
}
