import Foundation

/// The default texts of the emails the server sends. Each carries the link and the one-time
/// code, so a user can follow the link or type the code into the app.
enum EmailMessages {
    static func message(_ purpose: EmailPurpose, to address: String, link: String?, code: String) -> MailMessage {
        let (subject, action, footer) = texts(purpose)
        var body = ""
        if let link {
            body += "Follow this link \(action):\n\n\(link)\n\nOr enter this code: \(code)\n"
        } else {
            body += "Enter this code \(action): \(code)\n"
        }
        if let footer { body += "\n\(footer)\n" }
        return MailMessage(to: address, subject: subject, body: body)
    }

    private static func texts(_ purpose: EmailPurpose) -> (subject: String, action: String, footer: String?) {
        switch purpose {
        case .signup: ("Confirm your signup", "to confirm your email address", "If you did not sign up, ignore this message.")
        case .invite: ("You have been invited", "to accept the invitation and create your account", nil)
        case .recovery:
            ("Reset your password", "to reset the password for your account",
             "If you did not ask for this, ignore this message; your password is unchanged.")
        case .magicLink: ("Your sign-in link", "to sign in", "If you did not ask for this, ignore this message.")
        case .emailChange: ("Confirm email change", "to confirm this as the new email address of your account", nil)
        case .reauthentication:
            ("Confirm it is you", "to confirm it is you", "If you did not ask for this, someone may know your password: change it.")
        }
    }
}
