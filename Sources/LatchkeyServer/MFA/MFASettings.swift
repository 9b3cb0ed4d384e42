import Foundation

/// Multi-factor authentication settings (GoTrue's `GOTRUE_MFA_*`): which factor types may be
/// enrolled and verified, their codes, and how many factors a user may have
/// (``ServerConfiguration/mfa``).
public struct MFASettings: Sendable, Equatable {
    /// Whether users may enroll TOTP factors (GoTrue's `GOTRUE_MFA_TOTP_ENROLL_ENABLED`).
    public var totpEnrollEnabled: Bool = true
    /// Whether TOTP factors may be challenged and verified (GoTrue's `GOTRUE_MFA_TOTP_VERIFY_ENABLED`).
    public var totpVerifyEnabled: Bool = true
    /// Whether users may enroll WebAuthn factors (GoTrue's `GOTRUE_MFA_WEB_AUTHN_ENROLL_ENABLED`);
    /// the relying party is ``PasskeySettings``'s.
    public var webAuthnEnrollEnabled: Bool = false
    /// Whether WebAuthn factors may be challenged and verified (GoTrue's
    /// `GOTRUE_MFA_WEB_AUTHN_VERIFY_ENABLED`).
    public var webAuthnVerifyEnabled: Bool = false
    /// Whether users may enroll phone factors, numbers that get codes by SMS (GoTrue's
    /// `GOTRUE_MFA_PHONE_ENROLL_ENABLED`); the codes go through ``PhoneSettings/provider``.
    public var phoneEnrollEnabled: Bool = false
    /// Whether phone factors may be challenged and verified (GoTrue's `GOTRUE_MFA_PHONE_VERIFY_ENABLED`).
    public var phoneVerifyEnabled: Bool = false
    /// Digits in a phone factor's code: 6 to 10 (GoTrue's `GOTRUE_MFA_PHONE_OTP_LENGTH`).
    public var phoneCodeLength: Int = 6
    /// A phone factor's message; `{{ .Code }}` is replaced by the code. Empty: "Your code is
    /// {{ .Code }}" (GoTrue's `GOTRUE_MFA_PHONE_TEMPLATE`).
    public var phoneTemplate: String?
    /// Least seconds between two challenges of one phone factor (GoTrue's `GOTRUE_MFA_PHONE_MAX_FREQUENCY`).
    public var phoneMaxFrequency: TimeInterval = 60
    /// Most factors, verified or not, one user may have.
    public var maxEnrolledFactors: Int = ServerConfiguration.defaultMFAMaxEnrolledFactors
    /// Most verified factors one user may have.
    public var maxVerifiedFactors: Int = ServerConfiguration.defaultMFAMaxVerifiedFactors
    /// Seconds after its creation an MFA challenge can still be verified.
    public var challengeExpiry: TimeInterval = ServerConfiguration.defaultMFAChallengeExpiry
    /// Seconds an enrolled factor may stay unverified (with no challenge in the last
    /// ``challengeExpiry``) before it is deleted, at the user's next enrolment or by the
    /// cleanup task.
    public var factorExpiry: TimeInterval = ServerConfiguration.defaultMFAFactorExpiry

    public init() {}

    /// Refuses values the server cannot run with, naming the setting.
    func validate() throws(ConfigurationError) {
        typealias S = ServerSetting
        guard maxEnrolledFactors >= 1 else { throw S.mfaMaxEnrolledFactors.error("must be at least 1") }
        guard maxVerifiedFactors >= 1 else { throw S.mfaMaxVerifiedFactors.error("must be at least 1") }
        guard challengeExpiry >= 1 else { throw S.mfaChallengeExpiry.error("must be at least 1 second") }
        guard factorExpiry >= 1 else { throw S.mfaFactorExpiry.error("must be at least 1 second") }
        guard (6...10).contains(phoneCodeLength) else { throw S.mfaPhoneOTPLength.error("must be between 6 and 10") }
        guard phoneMaxFrequency >= 0 else { throw S.mfaPhoneMaxFrequency.error("cannot be negative") }
    }
}
