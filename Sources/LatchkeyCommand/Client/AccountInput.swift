import Foundation
import Latchkey
import LatchkeyWire

/// Email addresses as the commands check them before anything else is asked: the shape rule
/// the server applies (``EmailRule``), so a typo is caught before the password prompt rather
/// than after it.
enum EmailAddress {
    /// Whether `text` looks like an email address.
    static func isValid(_ text: String) -> Bool {
        EmailRule.isWellFormed(text)
    }

    /// The refusal of `text`, in words.
    static func problem(_ text: String) -> String {
        "'\(text)' is not an email address."
    }
}

/// The password rule the server publishes at `GET /settings` (the Latchkey server publishes its
/// minimum length; Supabase does not, and then the server's refusal is all there is).
struct PasswordRules: Sendable, Equatable {
    /// The fewest characters a password may have, when the server says.
    var minimumLength: Int?

    /// The rule in words ("at least 8 characters"), when known.
    var summary: String? {
        minimumLength.map { "at least \($0) character\($0 == 1 ? "" : "s")" }
    }

    /// Why `password` breaks the known rule, or `nil` when it keeps it (or no rule is known).
    func problem(_ password: String) -> String? {
        guard let minimumLength, password.count < minimumLength, let summary else { return nil }
        return "The password is too weak: this server requires \(summary)."
    }

    /// The command's failure for a password the server refused as weak (`weak_password`).
    var refusal: ClientFailure {
        if let summary {
            return ClientFailure(.usage, "The server refused the password as too weak: it requires \(summary).")
        }
        return ClientFailure(
            .usage, "The server refused the password as too weak.", hint: "Use a longer password with a mix of letters, numbers and symbols.")
    }

    /// Asks the server for its rules; no rules when it does not answer quickly (the server
    /// checks the password anyway).
    static func fetch(_ backend: GoTrueBackend) async -> PasswordRules {
        guard let settings = try? await backend.settings() else { return PasswordRules() }
        return PasswordRules(minimumLength: settings.passwordMinimumLength)
    }
}

/// Where a mailed link or code went, as far as the command can honestly tell. The server does
/// not publish how it sends mail; a Latchkey server without an SMTP URL writes each mail as a
/// `.eml` file in `<data-dir>/outbox/` instead of sending it.
enum MailDelivery {
    /// The lines to print after the server was asked to mail `email`.
    static func lines(server: String, email: String, what: String) -> [String] {
        var lines = ["Check \(email) for \(what)."]
        guard let host = URL(string: server)?.host, isLoopback(host) else { return lines }
        lines.append("  This server runs on this computer: if it has no SMTP URL (latchkey serve --smtp-url), the mail is not sent")
        lines.append("  but saved as a .eml file in the outbox/ folder of its --data-dir (./.latchkey/outbox by default).")
        let local = URL(fileURLWithPath: ".latchkey/outbox", isDirectory: true).standardizedFileURL
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: local.path, isDirectory: &isDirectory), isDirectory.boolValue {
            lines.append("  There is such a folder here: \(local.path)")
        }
        return lines
    }

    /// Whether `host` names this computer.
    static func isLoopback(_ host: String) -> Bool {
        let bare = host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")).lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }
}

/// Six-digit (up to ten with some GoTrue settings) codes from emails, as typed: spaces and
/// dashes between the digits are ignored.
enum EmailCode {
    /// The digits of `text`, or `nil` when it is not a code.
    static func normalized(_ text: String) -> String? {
        let digits = text.filter { !$0.isWhitespace && $0 != "-" }
        guard (6...10).contains(digits.count), digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return digits
    }
}
