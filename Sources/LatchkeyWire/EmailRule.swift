import Foundation

/// The shape an email address must have: the one rule the server checks before it stores or
/// mails an address, and the clients check before they send one (as the user types, or before
/// a command asks for the password), so that a client never refuses what the server accepts.
///
/// About shape only, never deliverability: `local@domain.tld` with one `@`, a local part of 1–64
/// bytes, a domain of at least two non-empty dot-separated labels whose last label has at least
/// two characters, no whitespace, control characters or `<>()[],;:\"`, and at most 254 bytes in
/// all. Case does not matter.
package enum EmailRule {
    /// The most bytes an address may have (RFC 5321's path limit, less the angle brackets).
    package static let maximumBytes = 254
    /// The most bytes a local part may have.
    package static let maximumLocalPartBytes = 64

    /// Whether `email` (already trimmed) has the shape of an email address.
    package static func isWellFormed(_ email: some StringProtocol) -> Bool {
        guard email.utf8.count <= maximumBytes else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let local = parts[0]
        let domain = parts[1]
        guard !local.isEmpty, local.utf8.count <= maximumLocalPartBytes else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2, labels.allSatisfy({ !$0.isEmpty }), (labels.last?.count ?? 0) >= 2 else {
            return false
        }
        return email.unicodeScalars.allSatisfy { !forbidden.contains($0) }
    }

    private static let forbidden = CharacterSet.whitespacesAndNewlines.union(.controlCharacters)
        .union(CharacterSet(charactersIn: "<>()[],;:\\\""))
}
