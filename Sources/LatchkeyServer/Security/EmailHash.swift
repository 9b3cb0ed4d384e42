import Crypto
import Foundation

/// A short, stable pseudonym for an email address, for logs: lets an operator correlate
/// events for one account without the address appearing in log files.
enum EmailHash {
    static func of(_ email: String) -> String {
        String(SHA256.hash(data: Data(email.lowercased().utf8)).hexString.prefix(12))
    }
}
