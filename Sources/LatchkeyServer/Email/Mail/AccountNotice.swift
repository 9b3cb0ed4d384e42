import Foundation

/// An email telling a user that their account changed (GoTrue's account-change notifications):
/// what changed, with what the email may name. It never carries a token, code or password.
enum AccountNotice: Sendable, Equatable {
    case passwordChanged
    /// The address changed; mailed to `oldEmail`, the address before the change.
    case emailChanged(oldEmail: String)
    /// The phone number changed from `oldPhone` (empty when there was none).
    case phoneChanged(oldPhone: String)
    case identityLinked(provider: String)
    case identityUnlinked(provider: String)
    case factorEnrolled(factorType: String)
    case factorUnenrolled(factorType: String)

    /// Its templates' kind.
    var kind: MailTemplates.Kind {
        switch self {
        case .passwordChanged: .passwordChangedNotification
        case .emailChanged: .emailChangedNotification
        case .phoneChanged: .phoneChangedNotification
        case .identityLinked: .identityLinkedNotification
        case .identityUnlinked: .identityUnlinkedNotification
        case .factorEnrolled: .mfaFactorEnrolledNotification
        case .factorUnenrolled: .mfaFactorUnenrolledNotification
        }
    }
}
