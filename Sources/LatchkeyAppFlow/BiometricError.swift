/// Why biometric authentication did not succeed: LocalAuthentication's `LAError` codes, as a
/// platform-independent type so the mapping to messages is the same (and tested) everywhere.
public enum BiometricError: Error, Sendable, Hashable {
    /// The person failed to provide valid credentials (`LAError.authenticationFailed`, -1).
    case authenticationFailed
    /// The person tapped Cancel (`userCancel`, -2).
    case userCancel
    /// The person tapped the fallback button, "Use Passcode" (`userFallback`, -3).
    case userFallback
    /// The system cancelled, e.g. another app came to the foreground (`systemCancel`, -4).
    case systemCancel
    /// No device passcode is set (`passcodeNotSet`, -5).
    case passcodeNotSet
    /// The device has no usable biometry (`biometryNotAvailable`, -6).
    case biometryNotAvailable
    /// No face or finger is enrolled (`biometryNotEnrolled`, -7).
    case biometryNotEnrolled
    /// Too many failed attempts; the passcode is required (`biometryLockout`, -8).
    case biometryLockout
    /// The app cancelled (`appCancel`, -9).
    case appCancel
    /// The context was invalidated (`invalidContext`, -10).
    case invalidContext
    /// The UI could not be shown (`notInteractive`, -1004).
    case notInteractive
    /// Another `LAError` code (companion or accessory errors, future codes).
    case other(code: Int)
    /// The authenticator threw something that is not a `BiometricError`.
    case unknown

    /// Maps an `LAError.Code` raw value (the `LAErrorDomain` code) onto a case.
    public init(laErrorCode code: Int) {
        switch code {
        case -1: self = .authenticationFailed
        case -2: self = .userCancel
        case -3: self = .userFallback
        case -4: self = .systemCancel
        case -5: self = .passcodeNotSet
        case -6: self = .biometryNotAvailable
        case -7: self = .biometryNotEnrolled
        case -8: self = .biometryLockout
        case -9: self = .appCancel
        case -10: self = .invalidContext
        case -1004: self = .notInteractive
        default: self = .other(code: code)
        }
    }

    /// Whether the lock screen should offer an explicit "Use Passcode" button after this error:
    /// after a lockout, the fallback button, or biometry that is missing or not set up.
    /// Cancellations (by the person, the system or the app) offer nothing: nobody did anything
    /// wrong. The words are ``AppFlowStrings/biometricFailure``'s.
    public var offersPasscode: Bool {
        switch self {
        case .biometryLockout, .biometryNotEnrolled, .biometryNotAvailable, .userFallback: true
        case .userCancel, .systemCancel, .appCancel, .passcodeNotSet, .authenticationFailed,
            .invalidContext, .notInteractive, .unknown, .other:
            false
        }
    }
}
