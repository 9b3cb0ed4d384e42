import Crypto
import Foundation

/// What may appear in logs about a person: never a token or a password, and an email only as a
/// short hash (enough to correlate lines, not to read the address).
enum LogRedaction {
    /// `sha256:` and the first 12 hex digits of the SHA-256 of the lower-cased address.
    static func email(_ email: String) -> String {
        let digest = SHA256.hash(data: Data(email.lowercased().utf8))
        return "sha256:" + digest.prefix(6).map { String(format: "%02x", $0) }.joined()
    }
}
