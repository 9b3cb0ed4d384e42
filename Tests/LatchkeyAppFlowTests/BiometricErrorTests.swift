import Foundation
import Latchkey
import LatchkeyTestSupport
import Testing

@testable import LatchkeyAppFlow

/// Seed 002 #22: every LAError code, mapped to the seed's message and fallback.
@Suite("App flow: LAError mapping")
struct BiometricErrorTests {
    @Test(
        "Every LAError code maps to its case",
        arguments: [
            (-1, BiometricError.authenticationFailed), (-2, .userCancel), (-3, .userFallback), (-4, .systemCancel),
            (-5, .passcodeNotSet), (-6, .biometryNotAvailable), (-7, .biometryNotEnrolled), (-8, .biometryLockout),
            (-9, .appCancel), (-10, .invalidContext), (-1004, .notInteractive), (-11, .other(code: -11)),
            (-12, .other(code: -12)), (42, .other(code: 42)),
        ])
    func codes(code: Int, expected: BiometricError) {
        #expect(BiometricError(laErrorCode: code) == expected)
    }

    @Test(
        "The seed's messages, naming the device's biometry",
        arguments: [
            (BiometricError.biometryLockout, "Too many failed attempts. Use your device passcode to unlock.", true),
            (.biometryNotEnrolled, "Face ID is not set up. Please enable it in Settings.", true),
            (.biometryNotAvailable, "Face ID is not available on this device.", true),
            (.userFallback, "Please use your device passcode.", true),
            (.passcodeNotSet, "Please set a device passcode in Settings to use Face ID.", false),
            (.authenticationFailed, "Face ID authentication failed. Please try again.", false),
            (.invalidContext, "Unable to authenticate. Please try again.", false),
            (.notInteractive, "Unable to authenticate. Please try again.", false),
            (.other(code: -12), "Unable to authenticate. Please try again.", false),
            (.unknown, "Unable to authenticate. Please try again.", false),
        ])
    func messages(error: BiometricError, message: String, offersPasscode: Bool) {
        #expect(AppFlowStrings().biometricFailure(error, "Face ID") == message)
        #expect(error.offersPasscode == offersPasscode)
    }

    @Test("Cancellations (user, system, app) say nothing and offer nothing")
    func cancellations() {
        for error in [BiometricError.userCancel, .systemCancel, .appCancel] {
            #expect(AppFlowStrings().biometricFailure(error, "Face ID") == nil)
            #expect(!error.offersPasscode)
        }
    }

    @Test("Touch ID, Optic ID and unknown biometry are named correctly")
    func names() {
        let strings = AppFlowStrings()
        func message(_ error: BiometricError, _ kind: BiometryKind) -> String? {
            strings.biometricFailure(error, strings.biometryName(kind))
        }
        #expect(message(.authenticationFailed, .touchID) == "Touch ID authentication failed. Please try again.")
        #expect(message(.biometryNotEnrolled, .opticID) == "Optic ID is not set up. Please enable it in Settings.")
        #expect(message(.biometryNotAvailable, .none) == "Biometric authentication is not available on this device.")
    }
}
