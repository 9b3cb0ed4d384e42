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
    /// Any other code (companion or accessory errors, future codes).
    case other(code: Int)

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

    /// What the lock screen shows for this error.
    public struct Presentation: Sendable, Hashable {
        /// The message, or `nil` when there is nothing to say (the person cancelled).
        public let message: String?
        /// Whether to offer an explicit "Use Passcode" button.
        public let offersPasscode: Bool
    }

    /// The message and fallback for this error, naming the device's biometry ("Face ID").
    ///
    /// Cancellations, by the person, the system or the app, say nothing: nobody did anything
    /// wrong. Lockout and the fallback button offer the passcode.
    public func presentation(for kind: BiometryKind) -> Presentation {
        let name = kind.displayName
        switch self {
        case .biometryLockout:
            return Presentation(message: "Too many failed attempts. Use your device passcode to unlock.", offersPasscode: true)
        case .biometryNotEnrolled:
            return Presentation(message: "\(name) is not set up. Please enable it in Settings.", offersPasscode: true)
        case .biometryNotAvailable:
            return Presentation(message: "\(name) is not available on this device.", offersPasscode: true)
        case .userCancel, .systemCancel, .appCancel:
            return Presentation(message: nil, offersPasscode: false)
        case .userFallback:
            return Presentation(message: "Please use your device passcode.", offersPasscode: true)
        case .passcodeNotSet:
            return Presentation(message: "Please set a device passcode in Settings to use \(name).", offersPasscode: false)
        case .authenticationFailed:
            return Presentation(message: "\(name) authentication failed. Please try again.", offersPasscode: false)
        case .invalidContext, .notInteractive, .other:
            return Presentation(message: "Unable to authenticate. Please try again.", offersPasscode: false)
        }
    }
}
