import Crypto
import Foundation
import Logging

/// Leaked-password protection: asks Have I Been Pwned's Pwned Passwords range API whether a
/// new password appears in known breaches (GoTrue's `GOTRUE_PASSWORD_HIBP_ENABLED`).
///
/// k-anonymity: only the first five hexadecimal characters of the password's SHA-1 leave the
/// server; the answer lists the suffixes of every breached hash with that prefix, and the match
/// is made here. Requests ask for padding (`Add-Padding: true`), so the answer's size does not
/// tell an observer much either; padded entries (count 0) are not matches. The password, its
/// hash and the suffix are never logged.
struct PwnedPasswords: Sendable {
    /// Where the range API is (`…/range/` + prefix).
    static let rangeURL = "https://api.pwnedpasswords.com/range/"

    let http: any ProviderHTTP
    let rangeURL: String
    let logger: Logger

    /// Whether `password` appears in a known breach; throws when the API could not say.
    func isPwned(_ password: String) async throws -> Bool {
        let digest = Insecure.SHA1.hash(data: Array(password.utf8)).map { String(format: "%02X", $0) }.joined()
        let prefix = digest.prefix(5)
        let suffix = digest.dropFirst(5)
        guard let url = URL(string: rangeURL + prefix) else { throw ProviderFetchError("the Pwned Passwords URL is not a URL") }
        let response = try await http.send(ProviderRequest(url: url, headers: [("Add-Padding", "true"), ("Accept", "text/plain")]))
        guard response.status == 200 else { throw ProviderFetchError("Pwned Passwords answered \(response.status)") }
        for line in String(decoding: response.body, as: UTF8.self).split(whereSeparator: \.isNewline) {
            let fields = line.split(separator: ":", maxSplits: 1)
            guard fields.count == 2, fields[0].uppercased() == suffix else { continue }
            return (Int(fields[1].trimmingCharacters(in: .whitespaces)) ?? 0) > 0
        }
        return false
    }
}
