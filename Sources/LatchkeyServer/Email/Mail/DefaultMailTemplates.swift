import Foundation

/// The emails the server sends unless `--mail-templates` replaces them: each carries the link
/// (on a line of its own in the text) and the six-digit code, so a user can follow the link or
/// type the code into the app; an account-change notice says what changed, and nothing more.
/// Written in the template syntax, and parsed like any override.
enum DefaultMailTemplates {
    private struct Wording {
        var subject: String
        /// What following the link does, after "Follow this link"; for a notice, what changed.
        var action: String
        /// The HTML link's text.
        var button: String
        var footer: String?
    }

    private static func wording(_ kind: MailTemplates.Kind) -> Wording {
        switch kind {
        case .confirmation:
            Wording(
                subject: "Confirm your signup", action: "to confirm your email address", button: "Confirm your email address",
                footer: "If you did not sign up, ignore this message.")
        case .invite:
            Wording(
                subject: "You have been invited", action: "to accept the invitation and create your account", button: "Accept the invitation",
                footer: nil)
        case .recovery:
            Wording(
                subject: "Reset your password", action: "to reset the password for your account", button: "Reset your password",
                footer: "If you did not ask for this, ignore this message; your password is unchanged.")
        case .magicLink:
            Wording(
                subject: "Your sign-in link", action: "to sign in", button: "Sign in",
                footer: "If you did not ask for this, ignore this message.")
        case .emailChange:
            Wording(
                subject: "Confirm email change", action: "to confirm this as the new email address of your account",
                button: "Confirm {{ .NewEmail }}", footer: nil)
        case .reauthentication:
            Wording(
                subject: "Confirm it is you", action: "to confirm it is you", button: "",
                footer: "If you did not ask for this, someone may know your password: change it.")
        case .passwordChangedNotification:
            notice("Your password has been changed", "The password of your account {{ .Email }} has been changed.")
        case .emailChangedNotification:
            notice("Your email address has been changed", "The email address of your account is now {{ .Email }} instead of {{ .OldEmail }}.")
        case .phoneChangedNotification:
            notice("Your phone number has been changed", "The phone number of your account {{ .Email }} is now {{ .Phone }}.")
        case .identityLinkedNotification:
            notice("A sign-in method has been added to your account", "You can now sign in to your account {{ .Email }} with {{ .Provider }}.")
        case .identityUnlinkedNotification:
            notice(
                "A sign-in method has been removed from your account", "You can no longer sign in to your account {{ .Email }} with {{ .Provider }}.")
        case .mfaFactorEnrolledNotification:
            notice(
                "A verification method has been added to your account",
                "A {{ .FactorType }} verification method has been added to your account {{ .Email }}.")
        case .mfaFactorUnenrolledNotification:
            notice(
                "A verification method has been removed from your account",
                "A {{ .FactorType }} verification method has been removed from your account {{ .Email }}.")
        }
    }

    private static func notice(_ subject: String, _ change: String) -> Wording {
        Wording(subject: subject, action: change, button: "", footer: "If you did not make this change, contact support right away.")
    }

    static func subject(_ kind: MailTemplates.Kind) -> String { wording(kind).subject }

    static func text(_ kind: MailTemplates.Kind) -> String {
        let wording = wording(kind)
        if kind.isNotice { return "\(wording.action)\n\n\(wording.footer ?? "")\n" }
        var body =
            kind.hasLink
            ? "Follow this link \(wording.action):\n\n{{ .ConfirmationURL }}\n\nOr enter this code: {{ .Token }}\n"
            : "Enter this code \(wording.action): {{ .Token }}\n"
        if let footer = wording.footer { body += "\n\(footer)\n" }
        return body
    }

    /// The HTML body: the same message, with the link as a link and the code set large. (The
    /// code stands on its own line, not after "this code:", so that a script reading the raw
    /// `.eml` for "this code: 123456" finds it once, in the text part.)
    static func html(_ kind: MailTemplates.Kind) -> String {
        let wording = wording(kind)
        var body = """
            <!DOCTYPE html>
            <html>
            <head><meta charset="utf-8"><title>\(wording.subject)</title></head>
            <body style="font-family: -apple-system, 'Segoe UI', Helvetica, Arial, sans-serif; line-height: 1.5; color: #1d1d1f; max-width: 32em;">
            <h2>\(wording.subject)</h2>

            """
        if kind.isNotice {
            body += "<p>\(wording.action)</p>\n<p style=\"color: #6e6e73;\">\(MailTemplate.escapeHTML(wording.footer ?? ""))</p>\n</body>\n</html>\n"
            return body
        }
        if kind.hasLink {
            body += """
                <p>Follow this link \(wording.action):</p>
                <p><a href="{{ .ConfirmationURL }}" style="display: inline-block; padding: 0.6em 1.2em; background: #0a58ca; color: #ffffff; text-decoration: none; border-radius: 6px;">\(wording.button)</a></p>
                <p>Or enter this code in the app:</p>

                """
        } else {
            body += "<p>Enter this code \(wording.action):</p>\n"
        }
        body += "<p style=\"font-size: 1.6em; font-weight: bold; letter-spacing: 0.2em; font-family: Menlo, Consolas, monospace;\">{{ .Token }}</p>\n"
        if let footer = wording.footer { body += "<p style=\"color: #6e6e73;\">\(MailTemplate.escapeHTML(footer))</p>\n" }
        body += "</body>\n</html>\n"
        return body
    }
}
