import Foundation
import LatchkeyWire

/// Rules for what clients send: email normalisation and validation, ban durations. (Password
/// rules are ``PasswordPolicy``.)
enum InputRules {
    /// Trims and lower-cases an email, then checks its shape.
    static func normalizedEmail(_ raw: String?) throws(AuthError) -> String {
        guard let raw else { throw AuthError.validation("Missing email") }
        let email = raw.trimmingCharacters(in: .whitespacesAndNewlines).lowercased()
        guard !email.isEmpty else { throw AuthError.validation("Missing email") }
        // The shape every address must have, the same rule the clients check.
        guard EmailRule.isWellFormed(email) else {
            throw AuthError.validation("Unable to validate email address: invalid format")
        }
        return email
    }

    /// A phone number as GoTrue keeps it: one leading `+` and every space dropped, then E.164's
    /// digits (a first digit other than 0, 2 to 15 in all). Anything else is 400
    /// `validation_failed` "Invalid phone number format (E.164 required)".
    static func normalizedPhone(_ raw: String?) throws(AuthError) -> String {
        var phone = Substring(raw ?? "")
        if phone.first == "+" { phone = phone.dropFirst() }
        let digits = phone.filter { $0 != " " }.utf8
        guard (2...15).contains(digits.count), let first = digits.first, first != UInt8(ascii: "0"),
            digits.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) })
        else { throw AuthError.validation("Invalid phone number format (E.164 required)") }
        return String(decoding: digits, as: UTF8.self)
    }

    /// Parses a Go-style duration ("24h", "1h30m", "90s", "500ms") or "none" (`nil`).
    static func banDuration(_ text: String) throws(AuthError) -> TimeInterval? {
        let value = text.trimmingCharacters(in: .whitespaces).lowercased()
        if value == "none" { return nil }
        var total: TimeInterval = 0
        var number = ""
        var index = value.startIndex
        var sawUnit = false
        while index < value.endIndex {
            let character = value[index]
            if character.isNumber || character == "." {
                number.append(character)
                index = value.index(after: index)
                continue
            }
            var unit = String(character)
            let next = value.index(after: index)
            if character == "m", next < value.endIndex, value[next] == "s" {
                unit = "ms"
                index = value.index(after: next)
            } else {
                index = next
            }
            guard let amount = Double(number) else { throw AuthError.validation("invalid format for ban duration: \(text)") }
            switch unit {
            case "h": total += amount * 3600
            case "m": total += amount * 60
            case "s": total += amount
            case "ms": total += amount / 1000
            default: throw AuthError.validation("invalid format for ban duration: \(text)")
            }
            number = ""
            sawUnit = true
        }
        guard sawUnit, number.isEmpty, total > 0 else { throw AuthError.validation("invalid format for ban duration: \(text)") }
        return total
    }
}
