import Crypto
import Foundation

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

    /// The code for `secret` (Base32, as the enrollment and the `otpauth://` URI carry it) at
    /// `date`.
    /// - Parameters:
    ///   - period: The step in seconds. Default 30.
    ///   - digits: The code's length. Default 6.
    /// - Throws: ``InvalidSecret`` when `secret` is not Base32.
    public static func current(secret: String, at date: Date = Date(), period: TimeInterval = 30, digits: Int = 6) throws -> String {
        guard let key = base32Decoded(secret), !key.isEmpty else { throw InvalidSecret() }
        let counter = UInt64((date.timeIntervalSince1970 / period).rounded(.down))
        return code(key: key, counter: counter, digits: digits)
    }

    /// The code for the raw key `key` at step `counter` (RFC 4226's HOTP, on which TOTP is built).
    public static func code(key: Data, counter: UInt64, digits: Int = 6) -> String {
        var bigEndian = counter.bigEndian
        let message = withUnsafeBytes(of: &bigEndian) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: key)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let truncated =
            (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(truncated % modulus)
        return String(repeating: "0", count: max(0, digits - value.count)) + value
    }

    /// The seconds until the code for `date` changes: a test that types a code just before the
    /// step ends can wait for the next one instead.
    public static func secondsRemaining(at date: Date = Date(), period: TimeInterval = 30) -> TimeInterval {
        period - date.timeIntervalSince1970.truncatingRemainder(dividingBy: period)
    }

    /// RFC 4648 Base32, case-insensitive; padding, spaces and dashes are ignored.
    static func base32Decoded(_ text: String) -> Data? {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)
        var bits: UInt32 = 0
        var count = 0
        var bytes: [UInt8] = []
        for character in text.uppercased().utf8
        where character != UInt8(ascii: "=") && character != UInt8(ascii: " ") && character != UInt8(ascii: "-") {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            bits = (bits << 5) | UInt32(value)
            count += 5
            if count >= 8 {
                count -= 8
                bytes.append(UInt8((bits >> UInt32(count)) & 0xFF))
            }
        }
        return Data(bytes)
    }
}
