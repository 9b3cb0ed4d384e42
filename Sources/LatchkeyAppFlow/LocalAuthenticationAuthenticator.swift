// Apple platforms only: not compiled on Linux, so not compiled by CI. Written against Apple's
// documented LocalAuthentication API (LAContext, LAPolicy, LAError, LABiometryType).
#if canImport(LocalAuthentication) && (os(iOS) || os(macOS) || os(visionOS))
import Foundation
import LocalAuthentication

/// A ``BiometricAuthenticator`` over LocalAuthentication's `LAContext`.
///
/// - ``BiometricPolicy/biometricsOnly`` evaluates `.deviceOwnerAuthenticationWithBiometrics`,
///   so a person who enabled Face ID unlock sees Face ID, not a passcode prompt; the system
///   dialog's fallback button is titled ``fallbackTitle`` and reports
///   ``BiometricError/userFallback``.
/// - ``BiometricPolicy/biometricsOrPasscode`` evaluates `.deviceOwnerAuthentication`: the
///   explicit "Use Passcode" path.
///
/// A new `LAContext` is used for every call, so an earlier success is never reused.
///
/// The app's `Info.plist` must contain `NSFaceIDUsageDescription` (the sentence the system
/// shows the first time the app asks for Face ID). Without it the system does not let the app
/// use Face ID: it refuses biometry with an `LAError` (reported here as a ``BiometricError``,
/// typically ``BiometricError/biometryNotAvailable``) instead of prompting — it does not crash
/// the app — and `AppLock` then shows biometrics as unavailable and offers the passcode.
/// Touch ID needs no such key.
///
/// Prompt only while the app is active (`AppLock` refuses otherwise): an inactive or
/// background app's evaluation is cancelled or refused by the system.
public struct LocalAuthenticationAuthenticator: BiometricAuthenticator {
    /// The title of the system dialog's fallback button. Default
    /// ``AppFlowStrings/usePasscode`` ("Use Passcode").
    public var fallbackTitle: String

    /// Creates an authenticator whose biometric dialog offers `fallbackTitle`.
    public init(fallbackTitle: String = AppFlowStrings().usePasscode) {
        self.fallbackTitle = fallbackTitle
    }

    public func availability() async -> BiometricAvailability {
        let context = LAContext()
        var error: NSError?
        let canEvaluate = context.canEvaluatePolicy(.deviceOwnerAuthenticationWithBiometrics, error: &error)
        let kind = Self.kind(of: context.biometryType)
        if canEvaluate { return .available(kind) }
        return .unavailable(kind, error.map { Self.biometricError($0) } ?? .biometryNotAvailable)
    }

    public func authenticate(reason: String, policy: BiometricPolicy) async throws {
        let context = LAContext()
        let laPolicy: LAPolicy
        switch policy {
        case .biometricsOnly:
            laPolicy = .deviceOwnerAuthenticationWithBiometrics
            context.localizedFallbackTitle = fallbackTitle
        case .biometricsOrPasscode:
            laPolicy = .deviceOwnerAuthentication
        }
        let success: Bool
        do {
            success = try await context.evaluatePolicy(laPolicy, localizedReason: reason)
        } catch let error as LAError {
            throw BiometricError(laErrorCode: error.code.rawValue)
        } catch {
            throw Self.biometricError(error as NSError)
        }
        guard success else { throw BiometricError.authenticationFailed }
    }

    static func biometricError(_ error: NSError) -> BiometricError {
        error.domain == LAErrorDomain ? BiometricError(laErrorCode: error.code) : .unknown
    }

    static func kind(of type: LABiometryType) -> BiometryKind {
        switch type {
        case .faceID: .faceID
        case .touchID: .touchID
        case .opticID: .opticID
        case .none: .none
        @unknown default: .none
        }
    }
}
#endif
