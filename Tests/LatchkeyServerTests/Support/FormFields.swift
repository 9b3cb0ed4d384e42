import Foundation

/// The fields of an `application/x-www-form-urlencoded` body, as the local provider fakes read
/// what the server posts (the last of a repeated name wins).
func formFields(_ text: String) -> [String: String] {
    var form: [String: String] = [:]
    for pair in text.split(separator: "&") {
        let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
        if parts.count == 2 { form[parts[0]] = parts[1] }
    }
    return form
}
