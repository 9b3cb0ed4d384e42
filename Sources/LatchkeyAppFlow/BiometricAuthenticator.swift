/// The kind of biometry a device offers.
public enum BiometryKind: Sendable, Hashable {
    /// No biometry (or unknown).
    case none
    case faceID
    case touchID
    case opticID
}

/// Whether biometric unlock can be used now.
public enum BiometricAvailability: Sendable, Hashable {
    /// Biometry of this kind is enrolled and usable.
    case available(BiometryKind)
    /// Biometry cannot be used, and why (not enrolled, not available, locked out, no passcode).
    case unavailable(BiometryKind, BiometricError)

    /// Whether biometric unlock can be used now.
    public var isAvailable: Bool {
        if case .available = self { true } else { false }
    }

    /// The kind of biometry the device has, available or not.
    public var kind: BiometryKind {
        switch self {
        case .available(let kind), .unavailable(let kind, _): kind
        }
    }
}

/// How a person may prove they are the device owner.
public enum BiometricPolicy: Sendable, Hashable {
    /// Biometrics only (LocalAuthentication's `.deviceOwnerAuthenticationWithBiometrics`): a
    /// person who enabled "Face ID unlock" sees Face ID, never a silent passcode prompt. A
    /// failure offers an explicit "Use Passcode" instead.
    case biometricsOnly
    /// Biometrics or the device passcode (`.deviceOwnerAuthentication`): the explicit
    /// "Use Passcode" fallback.
    case biometricsOrPasscode
}

/// Proves that the person holding the device is its owner: the app lock's unlock.
///
/// `LocalAuthenticationAuthenticator` implements it with `LAContext` on Apple platforms;
/// tests inject their own. Implementations throw ``BiometricError``, never a raw OS error.
public protocol BiometricAuthenticator: Sendable {
    /// Whether biometrics can be used now. Checked when the app becomes active; never polled.
    func availability() async -> BiometricAvailability

    /// Asks the person to authenticate, showing `reason`.
    /// - Throws: ``BiometricError`` when they did not (cancelled, failed, locked out, …).
    func authenticate(reason: String, policy: BiometricPolicy) async throws
}
