import Crypto
import Foundation

/// Time-based one-time passwords (RFC 6238) as authenticator apps make them: HMAC-SHA1 over
/// 30-second time steps, six digits.
///
/// ``matchingStep(of:secret:at:)`` accepts the current step and one on either side (clock drift
/// of up to 30 seconds), as GoTrue does; it returns the step that matched, so a caller can refuse
/// a code whose step was already used. `LatchkeyTesting`'s `TOTPCode` makes its codes with
/// ``code(secret:step:digits:)``, as an authenticator app would.
package enum TOTP {
    /// Seconds per time step.
    static let period: Int64 = 30
    /// Digits per code.
    static let digits = 6
    /// Steps accepted on either side of the current one.
    static let allowedDrift: Int64 = 1
    /// Bytes of a new secret (160 bits, the HMAC-SHA1 block RFC 4226 recommends; GoTrue's size).
    static let secretByteCount = 20

    /// A new random secret.
    static func randomSecret() -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        return (0..<secretByteCount).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    }

    /// The time step `date` falls in.
    static func step(at date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 / Double(period)).rounded(.down))
    }

    /// The code for `step` (RFC 4226's HOTP with the step as counter), `digits` long with
    /// leading zeros.
    package static func code(secret: [UInt8], step: Int64, digits: Int = digits) -> String {
        var counter = UInt64(bitPattern: step).bigEndian
        let message = withUnsafeBytes(of: &counter) { Data($0) }
        let mac = Array(HMAC<Insecure.SHA1>.authenticationCode(for: message, using: SymmetricKey(data: secret)))
        let offset = Int(mac[mac.count - 1] & 0x0F)
        let binary =
            (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16) | (UInt32(mac[offset + 2]) << 8)
            | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let value = String(binary % modulus)
        return String(repeating: "0", count: max(0, digits - value.count)) + value
    }

    /// The step within the allowed drift of `date` whose code is `code`, or `nil`. Every candidate
    /// is compared in constant time, so the answer's timing says nothing about which step matched.
    static func matchingStep(of code: String, secret: [UInt8], at date: Date) -> Int64? {
        guard code.utf8.count == digits, code.utf8.allSatisfy({ (0x30...0x39).contains($0) }) else { return nil }
        let current = step(at: date)
        var matched: Int64?
        for candidate in (current - allowedDrift)...(current + allowedDrift) {
            if constantTimeEquals(self.code(secret: secret, step: candidate), code), matched == nil { matched = candidate }
        }
        return matched
    }

    /// The `otpauth://` URI authenticator apps read (the Key URI Format), as GoTrue makes it:
    /// `otpauth://totp/ISSUER:ACCOUNT?algorithm=SHA1&digits=6&issuer=ISSUER&period=30&secret=SECRET`.
    static func uri(secret: String, issuer: String, account: String) -> String {
        let label = (issuer + ":" + account).addingPercentEncoding(withAllowedCharacters: labelCharacters) ?? ""
        let query = [
            ("algorithm", "SHA1"), ("digits", String(digits)), ("issuer", issuer), ("period", String(period)), ("secret", secret),
        ].map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: queryValueCharacters) ?? "")" }.joined(separator: "&")
        return "otpauth://totp/\(label)?\(query)"
    }

    /// Characters kept as they are in the label (a URL path segment; `:` and `@` included).
    private static let labelCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$&'()*+,;=:@")
    /// Characters kept as they are in a query value; a space is `%20`.
    private static let queryValueCharacters = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
}

/// RFC 4648 base32 (upper-case alphabet, no padding), the encoding of TOTP secrets.
package enum Base32 {
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZ234567".utf8)

    static func encode(_ bytes: [UInt8]) -> String {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = (buffer << 8) | UInt32(byte)
            bits += 8
            while bits >= 5 {
                output.append(alphabet[Int((buffer >> UInt32(bits - 5)) & 0x1F)])
                bits -= 5
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(5 - bits)) & 0x1F)]) }
        return String(decoding: output, as: UTF8.self)
    }

    /// The bytes of `text` (case-insensitive, padding and spaces ignored), or `nil` when it holds
    /// a character outside the alphabet.
    package static func decode(_ text: String) -> [UInt8]? {
        var output: [UInt8] = []
        var buffer: UInt32 = 0
        var bits = 0
        for character in text.uppercased().utf8 where character != UInt8(ascii: "=") && character != UInt8(ascii: " ") {
            guard let value = alphabet.firstIndex(of: character) else { return nil }
            buffer = (buffer << 5) | UInt32(value)
            bits += 5
            if bits >= 8 {
                output.append(UInt8((buffer >> UInt32(bits - 8)) & 0xFF))
                bits -= 8
            }
        }
        return output
    }
}
