import Foundation

/// `application/x-www-form-urlencoded` text, as browsers post forms and OAuth clients write
/// queries and credentials: `+` is a space, `%XX` a byte.
enum FormEncoding {
    /// One decoded name or value; `nil` when its percent-encoding is not valid UTF-8.
    static func decode(_ text: some StringProtocol) -> String? {
        text.replacingOccurrences(of: "+", with: " ").removingPercentEncoding
    }

    /// The fields of `text` (`a=1&b=2`), the first value of each name; a pair that does not
    /// decode is left out.
    static func fields(_ text: String) -> [String: String] {
        var values: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = decode(parts[0]), !name.isEmpty, values[name] == nil else { continue }
            guard let value = parts.count > 1 ? decode(parts[1]) : "" else { continue }
            values[name] = value
        }
        return values
    }
}
