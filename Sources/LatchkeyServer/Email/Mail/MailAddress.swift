import Foundation

/// A mailbox: an address with an optional display name, as in `Latchkey <no-reply@example.com>`.
public struct MailAddress: Sendable, Equatable, CustomStringConvertible {
    /// The bare address, `local@domain` (ASCII: SMTPUTF8 is not spoken).
    public var address: String
    /// The display name, if any (any Unicode; encoded per RFC 2047 in headers).
    public var name: String?

    public init(address: String, name: String? = nil) throws(ConfigurationError) {
        guard Self.isValidAddress(address) else { throw ConfigurationError("not a usable email address: \(Self.printable(address))") }
        self.address = address
        let trimmed = name?.trimmingCharacters(in: .whitespaces)
        self.name = trimmed?.isEmpty == false ? trimmed : nil
    }

    /// Parses `addr@example.com`, `<addr@example.com>` or `Display Name <addr@example.com>`
    /// (the name may be in double quotes).
    public init(parsing text: String) throws(ConfigurationError) {
        let value = text.trimmingCharacters(in: .whitespaces)
        if let open = value.lastIndex(of: "<"), value.hasSuffix(">") {
            let address = String(value[value.index(after: open)..<value.index(before: value.endIndex)])
            var name = value[..<open].trimmingCharacters(in: .whitespaces)
            if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") {
                name = String(name.dropFirst().dropLast()).replacingOccurrences(of: "\\\"", with: "\"").replacingOccurrences(of: "\\\\", with: "\\")
            }
            try self.init(address: address, name: name)
        } else {
            try self.init(address: value)
        }
    }

    /// `Name <address>` (display form, not header-encoded).
    public var description: String { name.map { "\($0) <\(address)>" } ?? address }

    /// The domain part, for Message-ID.
    var domain: String { address.split(separator: "@").last.map(String.init) ?? "localhost" }

    /// An address that can go between `<` and `>` in an SMTP command and in a header without
    /// quoting: one `@`, printable ASCII, none of the characters that end or split it.
    static func isValidAddress(_ address: String) -> Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, address.utf8.count <= 254 else { return false }
        return address.utf8.allSatisfy { byte in
            byte > 0x20 && byte < 0x7F && !"<>()[]\\,;:\"".utf8.contains(byte)
        }
    }

    /// `value` without control characters, for an error message.
    static func printable(_ value: String) -> String {
        String(value.unicodeScalars.filter { $0.value >= 0x20 && $0.value != 0x7F }.prefix(200).map(Character.init))
    }
}
