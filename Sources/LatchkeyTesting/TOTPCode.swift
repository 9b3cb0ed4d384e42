import Foundation
import LatchkeyServer

/// The code an authenticator app shows for a TOTP secret (RFC 6238: HMAC-SHA-1, 30-second
/// steps, 6 digits), so a test can complete multi-factor sign-in against ``TestAuthServer`` as
/// a user with their phone would.
///
/// ```swift
/// let enrollment = try await manager.mfa.enrollTOTP(friendlyName: "Phone")
/// try await manager.mfa.challengeAndVerify(factorID: enrollment.factorID,
///                                          code: try TOTPCode.current(secret: enrollment.secret))
/// ```
public enum TOTPCode {
    /// Why a secret cannot produce codes.
    public struct InvalidSecret: Error, Sendable, Hashable, CustomStringConvertible {
        public var description: String { "the TOTP secret is not Base32 (RFC 4648)" }
    }

    /// The code for `secret` (Base32, as the enrollment and the `otpauth://` URI carry it;
    /// case, padding, spaces and dashes do not matter) at `date`.
    /// - Parameters:
    ///   - period: The step in seconds. Default 30.
    ///   - digits: The code's length. Default 6.
    /// - Throws: ``InvalidSecret`` when `secret` is not Base32.
    public static func current(secret: String, at date: Date = Date(), period: TimeInterval = 30, digits: Int = 6) throws -> String {
        guard let key = Base32.decode(secret.replacingOccurrences(of: "-", with: "")), !key.isEmpty else { throw InvalidSecret() }
        let counter = UInt64((date.timeIntervalSince1970 / period).rounded(.down))
        return code(key: Data(key), counter: counter, digits: digits)
    }

    /// The code for the raw key `key` at step `counter` (RFC 4226's HOTP, on which TOTP is built),
    /// made by the code the server checks codes with.
    public static func code(key: Data, counter: UInt64, digits: Int = 6) -> String {
        TOTP.code(secret: Array(key), step: Int64(bitPattern: counter), digits: digits)
    }

    /// The seconds until the code for `date` changes: a test that types a code just before the
    /// step ends can wait for the next one instead.
    public static func secondsRemaining(at date: Date = Date(), period: TimeInterval = 30) -> TimeInterval {
        period - date.timeIntervalSince1970.truncatingRemainder(dividingBy: period)
    }
}
