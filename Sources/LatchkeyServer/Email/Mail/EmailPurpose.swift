import Foundation

/// What an email carrying a one-time token is for: which token it stores, which `/verify`
/// `type` its link names, and which authentication method a PKCE flow started by it records.
enum EmailPurpose: String, Sendable, CaseIterable {
    case signup
    case invite
    case recovery
    case magicLink = "magiclink"
    /// Email change: the mail to the new address.
    case emailChange = "email_change"
    /// Secure email change: the mail to the current address.
    case emailChangeCurrent = "email_change_current"
    /// A code only (no link): the nonce a password change asks for.
    case reauthentication

    /// The token kind it stores. Invitations share the confirmation token and magic links the
    /// recovery token, as in GoTrue.
    var kind: OneTimeToken.Kind {
        switch self {
        case .signup, .invite: .confirmation
        case .recovery, .magicLink: .recovery
        case .emailChange: .emailChange
        case .emailChangeCurrent: .emailChangeCurrent
        case .reauthentication: .reauthentication
        }
    }

    /// The `type` its `/verify` link names: both mails of an email change say `email_change`.
    var verificationType: String { self == .emailChangeCurrent ? EmailPurpose.emailChange.rawValue : rawValue }

    /// GoTrue's authentication method name, recorded in a PKCE flow and in the session's `amr`.
    var authenticationMethod: String {
        switch self {
        case .signup: "email/signup"
        default: verificationType
        }
    }

    /// What GoTrue names it in "Error sending … email".
    var mailName: String {
        switch self {
        case .signup: "confirmation"
        case .invite: "invite"
        case .recovery: "recovery"
        case .magicLink: "magic link"
        case .emailChange, .emailChangeCurrent: "email change"
        case .reauthentication: "reauthentication"
        }
    }
}
