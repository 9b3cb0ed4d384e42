import Foundation

/// What an email carrying a one-time token is for: which token it stores, which `/verify`
/// `type` its link names, and which authentication method a PKCE flow started by it records.
enum EmailPurpose: String, Sendable, CaseIterable {
    case signup
    case invite
    case recovery
    case magicLink = "magiclink"
    case emailChange = "email_change"
    /// A code only (no link): the nonce a password change asks for.
    case reauthentication

    /// The token kind it stores. Invitations share the confirmation token and magic links the
    /// recovery token, as in GoTrue.
    var kind: OneTimeToken.Kind {
        switch self {
        case .signup, .invite: .confirmation
        case .recovery, .magicLink: .recovery
        case .emailChange: .emailChange
        case .reauthentication: .reauthentication
        }
    }

    /// GoTrue's authentication method name, recorded in a PKCE flow and in the session's `amr`.
    var authenticationMethod: String {
        switch self {
        case .signup: "email/signup"
        default: rawValue
        }
    }

    /// What GoTrue names it in "Error sending … email".
    var mailName: String {
        switch self {
        case .signup: "confirmation"
        case .invite: "invite"
        case .recovery: "recovery"
        case .magicLink: "magic link"
        case .emailChange: "email change"
        case .reauthentication: "reauthentication"
        }
    }
}
