import Foundation

/// Which account-change notices are mailed, each off by default as in GoTrue
/// (`GOTRUE_MAILER_NOTIFICATIONS_<NAME>_ENABLED`).
public struct AccountNoticeSettings: Sendable, Equatable {
    public var passwordChanged = false
    public var emailChanged = false
    public var phoneChanged = false
    public var identityLinked = false
    public var identityUnlinked = false
    public var mfaFactorEnrolled = false
    public var mfaFactorUnenrolled = false

    public init() {}

    /// The kinds of notice that are on.
    var enabledKinds: Set<MailTemplates.Kind> {
        let flags: [(Bool, MailTemplates.Kind)] = [
            (passwordChanged, .passwordChangedNotification), (emailChanged, .emailChangedNotification),
            (phoneChanged, .phoneChangedNotification), (identityLinked, .identityLinkedNotification),
            (identityUnlinked, .identityUnlinkedNotification), (mfaFactorEnrolled, .mfaFactorEnrolledNotification),
            (mfaFactorUnenrolled, .mfaFactorUnenrolledNotification),
        ]
        return Set(flags.filter { $0.0 }.map { $0.1 })
    }
}
